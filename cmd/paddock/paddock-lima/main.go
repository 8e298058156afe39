// Command paddock-lima is the Paddock daemon's Lima helper: Lima's host
// agent and the operations on Lima instances that need Lima's heavier
// packages, kept out of the paddock binary so that the idle daemon does
// not pay for their initialisers. The daemon runs it; its commands live
// in platform/lima/limaexec, and this package only runs them.
package main

import (
	"os"

	"paddock.dev/paddock/platform/lima/limaexec"
)

func main() {
	os.Exit(limaexec.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
