package main

import (
	"fmt"
	"os"
)

const (
	store  = "/var/lib/docker/network/files/local-kv.db"
	bridge = "/sys/class/net/docker0"
)

func main() {
	did, err := run(store, bridge)
	if err != nil {
		fmt.Fprintln(os.Stderr, "paddock-stale-bridge:", err)
		os.Exit(1)
	}
	fmt.Println("paddock-stale-bridge:", did)
}
