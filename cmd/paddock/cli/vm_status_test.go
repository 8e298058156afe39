package cli

import (
	"strings"
	"testing"
)

// A VM whose start fails (its template names no image, and no guest agent
// is beside the test's binary: either fails the start, with no QEMU run).
const failingVM = `apiVersion: paddock.dev/v1alpha1
kind: ConfigMap
metadata:
  name: demo
data:
  template: |
    images:
    - location: /var/lib/paddock/none.qcow2
      arch: x86_64
    user: {name: paddock, uid: 1000}
    containerd: {system: false, user: false}
---
apiVersion: paddock.dev/v1alpha1
kind: VM
metadata:
  name: dev
spec:
  templateRef: demo
  running: true
`

// The tables show what a VM should be beside what it is, and why in -o
// wide; vm start shows its progress unless asked to be quiet.
func TestVMTablesShowDesiredStateAndPhase(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	if out, errOut, code := e.run(failingVM, "apply", "-f", "-"); code != 0 {
		t.Fatalf("apply: exit %d %s%s", code, out, errOut)
	}
	e.mustRun("wait", "vm/dev", "--for=condition=Running=False", "--reason=StartFailed", "--timeout=60s")

	tables := []struct {
		args []string
		want string
	}{
		{[]string{"vm", "list"}, "NAME   DESIRED   STATUS   RESTARTS   AGE\ndev    Running   Failed   0"},
		{[]string{"get", "vms"}, "dev    Running   Failed   0"},
		{[]string{"vm", "list", "-o", "wide"}, "REASON        TEMPLATE   ACCEL   MESSAGE\n"},
		{[]string{"vm", "list", "-o", "wide"}, "StartFailed   demo       -       instance dev: "},
		{[]string{"vm", "get", "dev"}, "StartFailed   demo       -       instance dev: "},
	}
	for _, tt := range tables {
		if out := e.mustRun(tt.args...); !strings.Contains(out, tt.want) {
			t.Errorf("paddock %v printed %q; want %q in it", tt.args, out, tt.want)
		}
	}

	e.mustRun("vm", "stop", "dev")
	if out := e.mustRun("vm", "list"); !strings.Contains(out, "dev    Stopped   Stopped   0") {
		t.Errorf("after vm stop: %q", out)
	}

	// Progress goes to stderr, a plain line each (stderr is no terminal
	// here), before the failure it ends in.
	_, errOut, code := e.run("", "vm", "start", "dev")
	if code != 1 || !strings.Contains(errOut, "Starting: booting the VM\n") || !strings.Contains(errOut, "StartFailed") {
		t.Errorf("vm start: exit %d, stderr %q; want exit 1, the progress and the failure", code, errOut)
	}
	e.mustRun("vm", "stop", "dev")
	_, errOut, code = e.run("", "vm", "start", "dev", "--quiet")
	if code != 1 || strings.Contains(errOut, "Starting:") {
		t.Errorf("vm start --quiet: exit %d, stderr %q; want exit 1 and no progress", code, errOut)
	}
	e.mustRun("vm", "stop", "dev")

	// A VM that ran under emulation once and is stopped now warns of
	// nothing (the status patch stands in for that earlier run).
	e.mustRun("patch", "vm", "dev", "--subresource", "status", "-p", `{"status":{"accelerator":"tcg"}}`)
	if _, errOut, _ := e.run("", "vm", "get", "dev"); strings.Contains(errOut, "emulation") {
		t.Errorf("vm get of a stopped VM warns: %q", errOut)
	}
	if out := e.mustRun("vm", "list", "-o", "wide"); !strings.Contains(out, "Stopped   Stopped   0          ") || strings.Contains(out, "tcg") {
		t.Errorf("the wide table names an accelerator for a stopped VM: %q", out)
	}
}
