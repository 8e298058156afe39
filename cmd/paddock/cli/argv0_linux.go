package cli

import (
	"fmt"
	"os"

	"paddock.dev/paddock/platform/lima"
	"paddock.dev/paddock/platform/qemu"
)

// init turns this process into one of the helpers the host agent runs
// through links to the paddock binary, before any command runs, when the
// binary was started under such a link's name:
//
//   - qemu-system-*: the QEMU wrapper, which gives guests a balloon that
//     returns the pages they free and runs them under TCG where Lima
//     would ask for KVM and Paddock chose TCG (see platform/qemu);
//   - ssh: the ssh shim, which waits for the guest's SSH server before
//     running ssh (see platform/lima).
//
// Each replaces this process with the real program, so no cobra command
// ever sees their flags.
func init() {
	var err error
	switch {
	case qemu.IsWrapperName(os.Args[0]):
		err = qemu.ExecWrapper(os.Args[1:])
	case lima.IsSSHShimName(os.Args[0]):
		err = lima.ExecSSH(os.Args[1:])
	default:
		return
	}
	fmt.Fprintf(os.Stderr, "paddock (as %s): %v\n", os.Args[0], err)
	os.Exit(exitError)
}
