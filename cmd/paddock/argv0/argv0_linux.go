package argv0

import (
	"fmt"
	"os"

	"paddock.dev/paddock/platform/lima/sshshim"
	"paddock.dev/paddock/platform/qemu"
)

// Run replaces this process with the real program when os.Args[0] names
// a helper, and returns otherwise:
//
//   - qemu-system-*: the QEMU wrapper, which gives guests a balloon that
//     returns the pages they free and runs them under TCG where Lima
//     would ask for KVM and Paddock chose TCG (see platform/qemu);
//   - ssh: the ssh shim, which waits for the guest's SSH server before
//     running ssh (see platform/lima/sshshim).
//
// It must run before any command parses flags, since the helpers' flags
// are QEMU's and ssh's. When the real program cannot be run, it says why
// and exits 1.
func Run() {
	var err error
	switch {
	case qemu.IsWrapperName(os.Args[0]):
		err = qemu.ExecWrapper(os.Args[1:])
	case sshshim.IsName(os.Args[0]):
		err = sshshim.Exec(os.Args[1:])
	default:
		return
	}
	fmt.Fprintf(os.Stderr, "paddock (as %s): %v\n", os.Args[0], err)
	os.Exit(1)
}
