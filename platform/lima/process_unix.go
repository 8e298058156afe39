//go:build !linux && !windows

package lima

import "syscall"

// processAlive reports whether pid runs. Without /proc, a pid reused by
// another process cannot be told apart; dir is unused.
func processAlive(pid int, _ string) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
