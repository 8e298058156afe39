//go:build linux

package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"
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
// VM, a bad tag and a missing App are each told apart. Once it has a disk
// (made here as its first start would), the stopped VM's snapshots are
// taken, listed, applied and deleted through the daemon with qemu-img.
func TestSnapshotsThroughTheDaemon(t *testing.T) {
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

	if _, err := exec.LookPath("qemu-img"); err != nil {
		t.Skip("the rest needs qemu-img (qemu-utils)")
	}
	disk := filepath.Join(e.path("lima_home"), "dev", filenames.DiffDisk)
	if out, err := exec.Command("qemu-img", "create", "-f", "qcow2", disk, "16M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
	if out := e.mustRun("vm", "snapshot", "create", "dev", "s1"); out != "snapshot s1 of vm dev created (0 B)\n" {
		t.Errorf("create printed %q", out)
	}
	if _, errOut, code := e.run("", "vm", "snapshot", "create", "dev", "s1"); code != 1 || !strings.Contains(errOut, `vm dev has a snapshot "s1" already`) {
		t.Errorf("create of a tag taken: exit %d %q", code, errOut)
	}
	out := e.mustRun("vm", "snapshot", "list", "dev")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "TAG ") ||
		!strings.Contains(lines[0], "SIZE") || !strings.Contains(lines[0], "CREATED") || !strings.HasPrefix(lines[1], "s1 ") || !strings.Contains(lines[1], "0 B") {
		t.Errorf("list printed:\n%s", out)
	}
	if out := e.mustRun("vm", "snapshot", "apply", "dev", "s1", "-f"); out != "snapshot s1 of vm dev applied\n" {
		t.Errorf("apply printed %q", out)
	}
	if _, errOut, code := e.run("", "vm", "snapshot", "delete", "dev", "nope", "-f"); code != 1 || !strings.Contains(errOut, `vm dev has no snapshot "nope"`) {
		t.Errorf("delete of an unknown tag: exit %d %q", code, errOut)
	}
	e.mustRun("vm", "snapshot", "delete", "dev", "s1", "-f")
	if out := e.mustRun("vm", "snapshot", "list", "dev", "-o", "yaml"); !strings.Contains(out, "items: []") {
		t.Errorf("list -o yaml after delete: %s", out)
	}
}

// On a terminal, apply and delete ask first, naming what is lost; only a
// yes goes on.
func TestSnapshotApplyAndDeleteAskOnATerminal(t *testing.T) {
	e := newEnv(t, "default")
	for _, c := range []struct {
		args         []string
		answer, want string
	}{
		{[]string{"vm", "snapshot", "apply", "dev", "s1"}, "n\n", "not confirmed: nothing was changed"},
		{[]string{"snapshot", "delete", "s1"}, "\n", "not confirmed"},
		{[]string{"vm", "snapshot", "apply", "dev", "s1"}, "y\n", "paddock serve"}, // went on, to a daemon that is not there
	} {
		errOut, code := runOnTerminal(t, e, c.answer, c.args...)
		if code != exitError || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "loses") || !strings.Contains(errOut, "Continue? [y/N]") {
			t.Errorf("paddock %v answering %q: exit %d %q; want exit %d and %q after the question", c.args, c.answer, code, errOut, exitError, c.want)
		}
	}
}
