// Command paddock is Paddock's one binary: the daemon (`paddock serve`), the
// CLI that talks to it, and the hidden helpers the daemon starts. This
// package only wires the others together.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
