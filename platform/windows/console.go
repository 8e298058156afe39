package windows

import (
	"fmt"
	"sync"
)

// The console control events of GenerateConsoleCtrlEvent.
const (
	ctrlCEvent     = 0 // CTRL_C_EVENT
	ctrlBreakEvent = 1 // CTRL_BREAK_EVENT
)

// ConsoleCall is one kernel32 call of a control event step.
type ConsoleCall struct {
	Func string // FreeConsole, AttachConsole, SetConsoleCtrlHandler, GenerateConsoleCtrlEvent
	Args []uint32
}

func (c ConsoleCall) String() string { return fmt.Sprintf("%s%v", c.Func, c.Args) }

// ConsoleCalls is how a control event step reaches the process pid, as the
// kernel32 calls to make in order; other steps make none. A step that
// attaches to the process's console first gives up the caller's own
// (FreeConsole: a process has one console at most) and gives up the
// process's at the end; one that sends CTRL_C_EVENT to a whole console
// makes the caller ignore it while it is attached there.
func ConsoleCalls(step StopStep, pid int) []ConsoleCall {
	group := uint32(pid) // a group's id is the pid of the process that leads it
	switch step.Action {
	case CtrlBreak:
		return []ConsoleCall{{"GenerateConsoleCtrlEvent", []uint32{ctrlBreakEvent, group}}}
	case AttachCtrlBreak:
		return []ConsoleCall{
			{"FreeConsole", nil},
			{"AttachConsole", []uint32{uint32(pid)}},
			{"GenerateConsoleCtrlEvent", []uint32{ctrlBreakEvent, group}},
			{"FreeConsole", nil},
		}
	case AttachCtrlC:
		return []ConsoleCall{
			{"FreeConsole", nil},
			{"AttachConsole", []uint32{uint32(pid)}},
			{"SetConsoleCtrlHandler", []uint32{0, 1}}, // NULL, TRUE: this process ignores it
			{"GenerateConsoleCtrlEvent", []uint32{ctrlCEvent, 0}},
			{"FreeConsole", nil},
			{"SetConsoleCtrlHandler", []uint32{0, 0}},
		}
	}
	return nil
}

// consoleMu serialises the steps that leave this process's console and
// attach to another's: a process has one console at most, so two stops at
// once (StopAll stops VMs in parallel) would detach each other midway and
// send an event to the wrong console.
var consoleMu sync.Mutex

// onConsoleAlone runs steps while no other caller in this process runs
// its own.
func onConsoleAlone(steps func()) {
	consoleMu.Lock()
	defer consoleMu.Unlock()
	steps()
}
