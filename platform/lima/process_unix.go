//go:build !linux && !windows && !darwin

package lima

import "syscall"

// processAlive reports whether pid runs. Without /proc, a pid reused by
// another process cannot be told apart; dir and pidFile are unused.
func processAlive(pid int, _, _ string) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
