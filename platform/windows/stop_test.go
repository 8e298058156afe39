package windows

import (
	"strings"
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
		{"a child on our console in our group", StopTarget{SharesConsole: true}, "ctrl-c, wait 10s, terminate", ""},
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
