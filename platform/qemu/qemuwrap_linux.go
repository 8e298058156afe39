package qemu

import (
	"fmt"
	"os"
	"syscall"
)

// ExecForTCG replaces this process with the real QEMU ($PADDOCK_QEMU_REAL)
// running args rewritten by RewriteForTCG (its translation cache as
// $PADDOCK_QEMU_TB_SIZE says), with a balloon that returns the pages the
// guest frees (AddFreePageReporting) and, since every cycle counts under
// emulation, without display devices (DropDisplayDevices). The process
// keeps its pid, so the pid file Lima's driver reads stays right. It
// returns only on failure.
func ExecForTCG(args []string) error {
	real := os.Getenv(EnvReal)
	if real == "" {
		return fmt.Errorf("%s is not set: the QEMU wrapper does not know which QEMU to run", EnvReal)
	}
	tbSize, err := ParseTBSize(os.Getenv(EnvTBSize))
	if err != nil {
		return err
	}
	argv := append([]string{real}, AddFreePageReporting(RewriteForTCG(DropDisplayDevices(args), tbSize))...)
	if err := syscall.Exec(real, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", real, err)
	}
	return nil
}
