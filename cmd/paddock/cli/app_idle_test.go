package cli

import (
	"strings"
	"testing"
)

// 'paddock set suspendWhenIdle=' takes a duration of at least 10s, 0 for
// off, and refuses a shorter one with exit 3 and what to write; 'paddock
// status' says whether and when the App is suspended.
func TestSetSuspendWhenIdleIsShownByStatus(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	e.mustRun("set", "--wait=false", "running=false")
	if out := e.mustRun("status"); !strings.Contains(out, "Idle:        never suspended ('paddock set suspendWhenIdle=15m'") {
		t.Errorf("status of an App that is never suspended:\n%s", out)
	}
	if _, errOut, code := e.run("", "set", "--wait=false", "suspendWhenIdle=5s"); code != 3 || !strings.Contains(errOut, "5s is too short: at least 10s") {
		t.Errorf("set suspendWhenIdle=5s: exit %d, %q", code, errOut)
	}
	e.mustRun("set", "--wait=false", "suspendWhenIdle=15m")
	if out := e.mustRun("status"); !strings.Contains(out, "Idle:        suspended after 15m without a Docker client or a running container") {
		t.Errorf("status after suspendWhenIdle=15m:\n%s", out)
	}
	if out := e.mustRun("status", "-o", "json"); !strings.Contains(out, `"suspendWhenIdle": "15m"`) {
		t.Errorf("status -o json:\n%s", out)
	}
	e.mustRun("set", "--wait=false", "containerEngine.name=containerd")
	if out := e.mustRun("status"); !strings.Contains(out, "Idle:        suspended after 15m without a containerd client or a running container; the next containerd request wakes it") {
		t.Errorf("status of an App running containerd after suspendWhenIdle=15m:\n%s", out)
	}
	e.mustRun("set", "--wait=false", "suspendWhenIdle=0")
	if out := e.mustRun("status"); !strings.Contains(out, "Idle:        never suspended") {
		t.Errorf("status after suspendWhenIdle=0:\n%s", out)
	}
}
