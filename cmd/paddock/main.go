// Command paddock is Paddock's one binary: the daemon (`paddock serve`), the
// CLI that talks to it, and the hidden helpers the daemon starts. Its
// commands live in package cli; this package only runs them.
package main

import (
	"os"

	"paddock.dev/paddock/cmd/paddock/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
