//go:build !windows

package hostcheck

import "syscall"

// noWindow is nil: only Windows opens console windows.
func noWindow() *syscall.SysProcAttr { return nil }
