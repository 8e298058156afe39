package lima_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
)

// The snapshots of a stopped machine, through paddock-lima and qemu-img
// on a disk like the one its first start makes: a machine that never
// started has none and cannot take one; tags are unique; an unknown one
// is NotFound.
func TestSnapshotsOfAStoppedMachine(t *testing.T) {
	if _, err := exec.LookPath("qemu-img"); err != nil {
		t.Skip("needs qemu-img (qemu-utils)")
	}
	d := newDriver(t)
	ctx := context.Background()
	dir := createStopped(t, d, "snap", fakeImageTemplate(t))

	if snaps, err := d.ListSnapshots(ctx, "snap"); err != nil || len(snaps) != 0 {
		t.Fatalf("snapshots of a machine never started: %v, %v; want none", snaps, err)
	}
	wantReason(t, d.CreateSnapshot(ctx, "snap", "s1"), resource.ReasonConflict, "start it once first")
	wantReason(t, d.CreateSnapshot(ctx, "nonesuch", "s1"), resource.ReasonConflict, "no machine yet")

	if out, err := exec.Command("qemu-img", "create", "-f", "qcow2", filepath.Join(dir, filenames.DiffDisk), "16M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
	if err := d.CreateSnapshot(ctx, "snap", "s1"); err != nil {
		t.Fatal(err)
	}
	wantReason(t, d.CreateSnapshot(ctx, "snap", "s1"), resource.ReasonAlreadyExists, `has a snapshot "s1" already`)
	wantReason(t, d.CreateSnapshot(ctx, "snap", "no/slash"), resource.ReasonInvalid, "invalid")
	if err := d.CreateSnapshot(ctx, "snap", "s2"); err != nil {
		t.Fatal(err)
	}
	snaps, err := d.ListSnapshots(ctx, "snap")
	if err != nil || len(snaps) != 2 || snaps[0].Tag != "s1" || snaps[1].Tag != "s2" || snaps[0].Created.IsZero() {
		t.Fatalf("ListSnapshots = %+v, %v; want s1 and s2 with their times", snaps, err)
	}
	if err := d.ApplySnapshot(ctx, "snap", "s1"); err != nil {
		t.Fatal(err)
	}
	wantReason(t, d.ApplySnapshot(ctx, "snap", "nope"), resource.ReasonNotFound, `no snapshot "nope"`)
	wantReason(t, d.DeleteSnapshot(ctx, "snap", "nope"), resource.ReasonNotFound, `no snapshot "nope"`)
	if err := d.DeleteSnapshot(ctx, "snap", "s1"); err != nil {
		t.Fatal(err)
	}
	if snaps, err := d.ListSnapshots(ctx, "snap"); err != nil || len(snaps) != 1 || snaps[0].Tag != "s2" {
		t.Fatalf("after deleting s1: %+v, %v; want s2 alone", snaps, err)
	}
}

func wantReason(t *testing.T, err error, reason resource.Reason, text string) {
	t.Helper()
	if resource.ReasonOf(err) != reason || err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("error %v (reason %q), want reason %s saying %q", err, resource.ReasonOf(err), reason, text)
	}
}
