//go:build !windows

package lima

import (
	"syscall"

	"github.com/lima-vm/lima/pkg/executil"
	"github.com/lima-vm/lima/pkg/osutil"
)

// hostAgentAttr starts a host agent in a process group of its own.
func hostAgentAttr() *syscall.SysProcAttr { return executil.BackgroundSysProcAttr }

// interrupt sends the host agent pid SIGINT, which always reaches it.
func interrupt(pid int) (sent bool, reason string, err error) {
	return true, "", osutil.SysKill(pid, osutil.SigInt)
}

// terminate kills pid with SIGKILL; one that is gone already counts.
func terminate(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
