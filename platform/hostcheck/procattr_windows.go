package hostcheck

import "golang.org/x/sys/windows"

// noWindow keeps the console programs the checks run (PowerShell, ssh,
// cygpath, wsl.exe) from opening a window of their own when the daemon,
// which has no console, runs them.
func noWindow() *windows.SysProcAttr {
	return &windows.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW, HideWindow: true}
}
