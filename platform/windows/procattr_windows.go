package windows

import "syscall"

// NoWindow is the SysProcAttr of a console program the daemon starts
// (HelperFlags).
func NoWindow() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: HelperFlags, HideWindow: true}
}

// HostAgentAttr is the SysProcAttr of a host agent (HostAgentFlags).
func HostAgentAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: HostAgentFlags, HideWindow: true}
}
