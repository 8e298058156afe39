package windows

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStopPlan(t *testing.T) {
	const grace = 10 * time.Second
	for _, tc := range []struct {
		name   string
		target StopTarget
		want   string // the steps, as log lines
		reason string
	}{
		{"a host agent in its own group on our console", StopTarget{SharesConsole: true, OwnGroup: true}, "ctrl-break, wait 10s, terminate", ""},
		{"a child on our console in our group", StopTarget{SharesConsole: true}, "terminate", "would stop this process too"},
		{"a host agent with its own console, from a service", StopTarget{HasConsole: true, OwnGroup: true, CallerMayDetach: true}, "attach-ctrl-break, wait 10s, terminate", ""},
		{"a daemon in another terminal, from a service", StopTarget{HasConsole: true, CallerMayDetach: true}, "attach-ctrl-c, wait 10s, terminate", ""},
		{"a daemon in another terminal, from a CLI in a terminal", StopTarget{HasConsole: true}, "terminate", "cannot leave its console"},
		{"a detached process", StopTarget{OwnGroup: true, CallerMayDetach: true}, "terminate", "has no console"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps, reason := StopPlan(tc.target, grace)
			var got []string
			for _, s := range steps {
				got = append(got, s.String())
			}
			if strings.Join(got, ", ") != tc.want || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
				t.Errorf("StopPlan(%+v) = %v, %q; want %s, %q", tc.target, got, reason, tc.want, tc.reason)
			}
			// Every plan ends in Terminate, and waits before it when it
			// asked the process to stop.
			if steps[len(steps)-1].Action != Terminate || len(steps) > 1 && steps[len(steps)-2] != (StopStep{Action: Wait, Timeout: grace}) {
				t.Errorf("StopPlan(%+v) does not wait and then terminate: %v", tc.target, got)
			}
		})
	}
}

// The kernel32 calls of each control event step, in order: what the
// Windows executor (interrupt_windows.go) runs, checked here on any OS.
func TestConsoleCalls(t *testing.T) {
	for _, tc := range []struct {
		action StopAction
		want   string
	}{
		{CtrlBreak, "GenerateConsoleCtrlEvent[1 4242]"},
		{AttachCtrlBreak, "FreeConsole[] AttachConsole[4242] GenerateConsoleCtrlEvent[1 4242] FreeConsole[]"},
		{AttachCtrlC, "FreeConsole[] AttachConsole[4242] SetConsoleCtrlHandler[0 1] GenerateConsoleCtrlEvent[0 0] FreeConsole[] SetConsoleCtrlHandler[0 0]"},
		{Wait, ""},
		{Terminate, ""},
	} {
		var got []string
		for _, c := range ConsoleCalls(StopStep{Action: tc.action}, 4242) {
			got = append(got, c.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v, want %s", tc.action, got, tc.want)
		}
	}
}

// What `wsl.exe --list --quiet` prints, decoded: a list (the default
// distribution is not marked in it), or a message when there is none.
func TestListed(t *testing.T) {
	list := "Ubuntu\r\nlima-default\r\nLima-Dev\r\n"
	for _, tc := range []struct {
		out, name string
		want      bool
	}{
		{list, "default", true},
		{list, "dev", true}, // WSL ignores case
		{list, "de", false},
		{"Windows Subsystem for Linux has no installed distributions.\r\nDistributions can be installed by visiting the Microsoft Store:\r\nhttps://aka.ms/wslstore\r\n", "default", false},
	} {
		if got := Listed(tc.out, Distro(tc.name)); got != tc.want {
			t.Errorf("Listed(%q, %s) = %v", tc.out, Distro(tc.name), got)
		}
	}
}

// Stops in parallel (StopAll) make their console steps one at a time.
func TestConsoleStepsDoNotOverlap(t *testing.T) {
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			onConsoleAlone(func() {
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				time.Sleep(5 * time.Millisecond)
				inside.Add(-1)
			})
		})
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d console step sequences overlapped another", n)
	}
}
