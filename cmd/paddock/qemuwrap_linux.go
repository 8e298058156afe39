package main

import (
	"fmt"
	"os"

	"paddock.dev/paddock/platform/linux"
)

// init turns this process into the QEMU wrapper before any command runs
// when the binary was started through a link named qemu-system-*: the host
// agent points Lima's QEMU driver at such a link to run guests under TCG
// (see platform/lima). The wrapper rewrites QEMU's arguments and execs the
// real QEMU in this process, so no cobra command ever sees QEMU's flags.
func init() {
	if !linux.IsQEMUWrapperName(os.Args[0]) {
		return
	}
	err := linux.ExecQEMUForTCG(os.Args[1:])
	fmt.Fprintf(os.Stderr, "paddock (as %s): %v\n", os.Args[0], err)
	os.Exit(exitError)
}
