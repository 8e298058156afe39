//go:build !windows

package client

import (
	"errors"
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so that it outlives this
// process and its terminal.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
