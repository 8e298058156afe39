package windows

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	consoleProcs              = map[string]*windows.LazyProc{
		"FreeConsole":              kernel32.NewProc("FreeConsole"),
		"AttachConsole":            kernel32.NewProc("AttachConsole"),
		"SetConsoleCtrlHandler":    kernel32.NewProc("SetConsoleCtrlHandler"),
		"GenerateConsoleCtrlEvent": kernel32.NewProc("GenerateConsoleCtrlEvent"),
	}
)

// Interrupt asks the process pid to stop with the console control event
// that StopPlan chooses for it (ownGroup: it leads its own process group),
// through the calls ConsoleCalls lists. It reports whether it sent one;
// when it did not, reason says why, and the caller terminates the process
// (TerminateProcess) at once instead of waiting for it.
func Interrupt(pid int, ownGroup bool) (sent bool, reason string, err error) {
	shares, callerHasConsole := onConsole(pid)
	target := StopTarget{
		SharesConsole: shares,
		OwnGroup:      ownGroup,
		// Whether it has a console of its own is only known by
		// attaching to it: AttachConsole fails when it has none.
		HasConsole:      !shares,
		CallerMayDetach: !callerHasConsole,
	}
	steps, reason := StopPlan(target, 0)
	calls := ConsoleCalls(steps[0], pid)
	if len(calls) == 0 {
		return false, reason, nil
	}
	onConsoleAlone(func() { sent, reason, err = callAll(calls) })
	return sent, reason, err
}

// callAll makes calls in order; after a failed one it makes those of the
// rest that give back a console (undo).
func callAll(calls []ConsoleCall) (sent bool, reason string, err error) {
	for i, c := range calls {
		if err := callConsole(c); err != nil {
			undo(calls[i+1:])
			if c.Func == "AttachConsole" {
				return false, fmt.Sprintf("the process has no console to attach to (%v)", err), nil
			}
			return false, "", fmt.Errorf("%s: %w", c, err)
		}
	}
	return true, "", nil
}

func callConsole(c ConsoleCall) error {
	args := make([]uintptr, len(c.Args))
	for i, a := range c.Args {
		args[i] = uintptr(a)
	}
	r, _, err := consoleProcs[c.Func].Call(args...)
	if r == 0 && c.Func != "FreeConsole" { // FreeConsole fails when there is none to free
		return err
	}
	return nil
}

// undo makes the calls among rest that give back a console or the
// caller's handling of CTRL_C_EVENT, after a call before them failed.
func undo(rest []ConsoleCall) {
	for _, c := range rest {
		if c.Func == "FreeConsole" || c.Func == "SetConsoleCtrlHandler" && c.Args[1] == 0 {
			_ = callConsole(c)
		}
	}
}

// onConsole reports whether pid is attached to this process's console, and
// whether this process has a console at all.
func onConsole(pid int) (shares, has bool) {
	list := make([]uint32, 64)
	for {
		n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&list[0])), uintptr(len(list)))
		if n == 0 {
			return false, false
		}
		if int(n) <= len(list) {
			list = list[:n]
			break
		}
		list = make([]uint32, n)
	}
	for _, p := range list {
		if int(p) == pid {
			return true, true
		}
	}
	return false, true
}

// TerminateProcess ends the process pid with TerminateProcess: nothing runs in it
// any more, no cleanup either.
func TerminateProcess(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 1)
}
