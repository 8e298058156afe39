// Command paddock is Paddock's main binary: the daemon (`paddock serve`),
// the CLI that talks to it, and the helpers a host agent runs under the
// names qemu-system-* and ssh (the QEMU wrapper and the ssh shim). The
// host agents themselves, and the operations that need Lima's heavier
// packages, run in paddock-lima (./paddock-lima), so that this binary does
// not link them. Its commands live in package cli, which also picks the
// helper by invocation name and wires the daemon's parts; this package
// only runs it.
package main

import (
	"os"

	"paddock.dev/paddock/cmd/paddock/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
