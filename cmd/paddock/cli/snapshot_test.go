//go:build linux

package cli

import (
	"strings"
	"testing"
)

// Snapshot commands check their arguments, and apply and delete ask
// first, before any daemon is asked: none runs here.
func TestSnapshotUsage(t *testing.T) {
	e := newEnv(t, "default")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"vm", "snapshot", "create", "dev"}, "needs 2 argument(s), got 1"},
		{[]string{"vm", "snapshot", "list"}, "needs 1 argument(s), got 0"},
		{[]string{"vm", "snapshot", "list", "dev", "-o", "wide"}, `unknown output format "wide": use table, json or yaml`},
		{[]string{"snapshot", "list", "extra"}, "needs 0 argument(s), got 1"},
		{[]string{"vm", "snapshot", "apply", "dev", "s1"}, "applying snapshot s1 of vm dev loses the VM's current state (its disk, and its memory while it runs); without a terminal to ask on, pass --force (-f) to confirm"},
		{[]string{"vm", "snapshot", "delete", "dev", "s1"}, "deleting snapshot s1 of vm dev loses the snapshot; without a terminal to ask on, pass --force"},
		{[]string{"snapshot", "apply", "s1"}, "applying snapshot s1 of the App's VM loses"},
	} {
		if _, errOut, code := e.run("", c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("paddock %v: exit %d %q, want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
}

// Against a real daemon and driver, without booting: a VM that never
// started has no snapshots and cannot take one, and says so; a missing
// VM, a bad tag and a missing App are each told apart.
func TestSnapshotsOfAVMNeverStarted(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")

	if out, errOut, code := e.run("", "vm", "snapshot", "list", "dev"); code != 0 || out != "" || !strings.Contains(errOut, "No snapshots of vm dev.") {
		t.Errorf("list: exit %d %q %q", code, out, errOut)
	}
	if out := e.mustRun("vm", "snapshot", "list", "dev", "-o", "json"); !strings.Contains(out, `"kind": "VMSnapshotList"`) || !strings.Contains(out, `"items": []`) {
		t.Errorf("list -o json: %s", out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"vm", "snapshot", "create", "dev", "s1"}, 1, "vm dev has no disk yet, so no snapshots: start it once first"},
		{[]string{"vm", "snapshot", "apply", "dev", "s1", "-f"}, 1, "start it once first"},
		{[]string{"vm", "snapshot", "create", "dev", "a/b"}, 3, "tag"},
		{[]string{"vm", "snapshot", "list", "nope"}, 1, `vm "nope" in namespace "default" not found`},
		{[]string{"snapshot", "list"}, 1, "there is no App: 'paddock start' makes one"},
	} {
		if _, errOut, code := e.run("", c.args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("paddock %v: exit %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
