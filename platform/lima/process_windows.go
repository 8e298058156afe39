package lima

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess reports for a live process.
const stillActive = 259

// processAlive reports whether pid runs. Windows does not show another
// process's command line cheaply, so a reused pid cannot be told apart;
// dir is unused.
func processAlive(pid int, _ string) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}
