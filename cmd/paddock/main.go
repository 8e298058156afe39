// Command paddock is Paddock's main binary: the CLI that talks to the
// daemon, the daemon itself (`paddock serve`, assembled in package
// daemon), and the helpers a host agent runs under the names
// qemu-system-* and ssh (package argv0). The host agents themselves, and
// the operations that need Lima's heavier packages, run in paddock-lima
// (./paddock-lima), so that this binary does not link them.
package main

import (
	"os"

	"paddock.dev/paddock/cmd/paddock/argv0"
	"paddock.dev/paddock/cmd/paddock/cli"
)

func main() {
	argv0.Run()
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
