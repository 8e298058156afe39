package windows

import (
	"fmt"
	"time"
)

// StopAction is one step of stopping a process on Windows.
type StopAction string

const (
	// CtrlBreak sends CTRL_BREAK_EVENT to the process group the process
	// leads (it was started with CREATE_NEW_PROCESS_GROUP, as Lima starts
	// its host agents): Go delivers it to the process as os.Interrupt.
	CtrlBreak StopAction = "ctrl-break"
	// AttachCtrlBreak detaches from the caller's console (if any),
	// attaches to the process's console, sends CTRL_BREAK_EVENT to the
	// process group the process leads, then detaches.
	AttachCtrlBreak StopAction = "attach-ctrl-break"
	// AttachCtrlC detaches from the caller's console (if any), attaches to
	// the process's console and sends CTRL_C_EVENT to every process on it
	// (process group 0) while the caller ignores it, then detaches.
	AttachCtrlC StopAction = "attach-ctrl-c"
	// Wait waits for the process to exit, at most the step's Timeout.
	Wait StopAction = "wait"
	// Terminate ends the process with TerminateProcess: no cleanup runs
	// in it.
	Terminate StopAction = "terminate"
)

// StopStep is one step of a stop sequence.
type StopStep struct {
	Action  StopAction
	Timeout time.Duration // for Wait
}

// StopTarget is what the caller knows of the process it stops.
type StopTarget struct {
	// SharesConsole: the process is attached to the caller's console
	// (GetConsoleProcessList lists it).
	SharesConsole bool
	// OwnGroup: the process leads its own process group
	// (CREATE_NEW_PROCESS_GROUP). Such a group ignores CTRL_C_EVENT, so
	// only CTRL_BREAK_EVENT reaches it.
	OwnGroup bool
	// HasConsole: the process has a console of its own to attach to.
	HasConsole bool
	// CallerMayDetach: the caller can give up its own console for a
	// moment (a process may be attached to one console at a time). A
	// service has none to give up; a CLI in a terminal must not lose its
	// terminal.
	CallerMayDetach bool
}

// StopPlan is how to stop a process on Windows: a console control event,
// a wait of at most grace, then TerminateProcess if it still runs; reason
// says why the plan has no control event when it has none.
//
// The asymmetry with Unix: a signal reaches any process the caller may
// signal, but a console control event only reaches processes attached to
// the console of the caller that generates it (GenerateConsoleCtrlEvent
// sends to a process group on the caller's own console), and a process
// group of its own (CREATE_NEW_PROCESS_GROUP) ignores CTRL_C_EVENT. So a
// process that shares the caller's console gets CTRL_BREAK_EVENT to the
// group it leads; one that shares the console and the caller's group
// cannot be sent an event that spares the caller, and is terminated (every
// helper Paddock starts leads its own group); one with a console of its
// own gets CTRL_BREAK_EVENT (or CTRL_C_EVENT, when it leads no group)
// after the caller attaches to that console, when the caller may leave its
// own for a moment (a service has none); any other (a process without a
// console, such as one started detached) cannot be asked to stop and is
// terminated at once.
func StopPlan(t StopTarget, grace time.Duration) (steps []StopStep, reason string) {
	terminate := StopStep{Action: Terminate}
	switch {
	case t.SharesConsole && t.OwnGroup:
		return []StopStep{{Action: CtrlBreak}, {Action: Wait, Timeout: grace}, terminate}, ""
	case t.SharesConsole:
		return []StopStep{terminate}, "the process is in this process's group on its console, so a control event would stop this process too"
	case t.HasConsole && t.CallerMayDetach && t.OwnGroup:
		return []StopStep{{Action: AttachCtrlBreak}, {Action: Wait, Timeout: grace}, terminate}, ""
	case t.HasConsole && t.CallerMayDetach:
		return []StopStep{{Action: AttachCtrlC}, {Action: Wait, Timeout: grace}, terminate}, ""
	case t.HasConsole:
		return []StopStep{terminate}, "the process has its own console, and this process cannot leave its console to send it a control event"
	}
	return []StopStep{terminate}, "the process has no console, so no console control event can reach it"
}

// String reads a plan as a log line.
func (s StopStep) String() string {
	if s.Action == Wait {
		return fmt.Sprintf("%s %v", s.Action, s.Timeout)
	}
	return string(s.Action)
}
