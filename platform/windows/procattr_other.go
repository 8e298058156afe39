//go:build !windows

package windows

import "syscall"

// NoWindow is nil: only Windows opens console windows.
func NoWindow() *syscall.SysProcAttr { return nil }
