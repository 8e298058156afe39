package lima

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	pwindows "paddock.dev/paddock/platform/windows"
)

// stillActive is the exit code GetExitCodeProcess reports for a live process.
const stillActive = 259

// processAlive reports whether pid runs and is the process that wrote
// pidFile: it was created before the file was written (wrotePIDFile), so
// that a pid Windows gave to another program since does not count.
// Windows does not show another process's command line cheaply, so its
// creation time is compared instead; dir is unused.
func processAlive(pid int, _ string, pidFile string) bool {
	return pidFileOwner(pid, pidFile, processStart)
}

// processStart returns pid's creation time (GetProcessTimes), or an error
// when it does not run.
func processStart(pid int) (time.Time, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return time.Time{}, err
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return time.Time{}, err
	}
	if code != stillActive {
		return time.Time{}, errors.New("process has exited")
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, created.Nanoseconds()), nil
}

// interrupt asks the host agent pid to stop with the console control event
// that platform/windows.StopPlan chooses: it leads its own process group
// (Start gives it one), so CTRL_BREAK_EVENT, sent from the daemon's
// console when it shares it, or from the host agent's own console, which
// a daemon without one (a service) attaches to for the moment. A console
// control event reaches no other process, unlike a signal on Unix; when
// none can reach it, sent is false and reason says why, and Stop
// terminates it at once.
func interrupt(pid int) (sent bool, reason string, err error) {
	return pwindows.Interrupt(pid, true)
}

// terminate ends pid by TerminateProcess. (Lima's own forced stop sends
// CTRL_BREAK_EVENT on Windows, which a hung process ignores.)
func terminate(pid int) error { return pwindows.TerminateProcess(pid) }

// hostAgentAttr starts a host agent in a process group of its own and
// without a console window (the daemon has none; the host agent's ssh and
// wsl.exe share its windowless console).
func hostAgentAttr() *syscall.SysProcAttr { return pwindows.HostAgentAttr() }
