// Command paddock is Paddock's one binary: the daemon (`paddock serve`),
// the CLI that talks to it, and the helpers the daemon starts (the host
// agent, `paddock hostagent`; and, under the names qemu-system-* and ssh,
// the QEMU wrapper and the ssh shim that a host agent runs). Its commands
// live in package cli, which also picks the helper by invocation name and
// wires the daemon's parts; this package only runs it.
package main

import (
	"os"

	"paddock.dev/paddock/cmd/paddock/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
