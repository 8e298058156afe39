package lima

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
)

// Snapshots are taken, applied, deleted and listed by Lima's snapshot
// package in paddock-lima (`paddock-lima snapshot ...`): with qemu-img on
// the disk of a stopped machine, through QEMU's monitor (savevm, loadvm,
// delvm) on a running one, so that applying to a running machine
// restores its memory and devices too, live. The driver checks first
// what Lima would fail at with a message nobody can act on (qemu-img's
// exit status alone) or would not check at all (qemu-img and savevm
// both take a second snapshot of an existing tag), and returns those
// failures as *resource.Error: NotFound for an unknown tag,
// AlreadyExists for a tag taken, Conflict for a machine that cannot take
// snapshots now (never started, so without a disk; neither running nor
// stopped) and BadRequest for a VM type without snapshots (Lima's vz and
// wsl2 drivers have none).

// ListSnapshots lists the snapshots of the machine name, oldest first; a
// machine that never started has none.
func (d *Driver) ListSnapshots(ctx context.Context, name string) ([]resource.VMSnapshot, error) {
	unlock := d.lockSnapshots(name)
	defer unlock()
	if err := d.snapshotTarget(name); err != nil {
		if errors.Is(err, errNoDisk) {
			return []resource.VMSnapshot{}, nil
		}
		return nil, err
	}
	return d.listSnapshots(ctx, name)
}

// CreateSnapshot takes the snapshot tag of the machine name: its disk
// when stopped, its disk, memory and devices when running (the machine
// pauses while QEMU writes them).
func (d *Driver) CreateSnapshot(ctx context.Context, name, tag string) error {
	return d.snapshotOp(ctx, "create", name, tag, false)
}

// ApplySnapshot returns the machine name to its snapshot tag, losing its
// current state: the disk of a stopped machine; the disk, memory and
// devices of a running one, which goes on running from that point.
func (d *Driver) ApplySnapshot(ctx context.Context, name, tag string) error {
	return d.snapshotOp(ctx, "apply", name, tag, true)
}

// DeleteSnapshot deletes the snapshot tag of the machine name.
func (d *Driver) DeleteSnapshot(ctx context.Context, name, tag string) error {
	return d.snapshotOp(ctx, "delete", name, tag, true)
}

// snapshotOp runs `paddock-lima snapshot VERB NAME TAG` once the machine
// can take it and the tag exists (mustExist) or does not.
func (d *Driver) snapshotOp(ctx context.Context, verb, name, tag string, mustExist bool) error {
	if !resource.ValidSnapshotTag(tag) {
		return resource.Errorf(resource.ReasonInvalid, "snapshot tag %q is invalid: use 1 to 63 letters, digits, '.', '_' or '-'", tag)
	}
	unlock := d.lockSnapshots(name)
	defer unlock()
	if err := d.snapshotTarget(name); err != nil {
		if errors.Is(err, errNoDisk) {
			return resource.Errorf(resource.ReasonConflict, "vm %s has no disk yet, so no snapshots: start it once first", name)
		}
		return err
	}
	snaps, err := d.listSnapshots(ctx, name)
	if err != nil {
		return err
	}
	exists := slices.ContainsFunc(snaps, func(s resource.VMSnapshot) bool { return s.Tag == tag })
	switch {
	case mustExist && !exists:
		return resource.Errorf(resource.ReasonNotFound, "vm %s has no snapshot %q", name, tag)
	case !mustExist && exists:
		return resource.Errorf(resource.ReasonAlreadyExists, "vm %s has a snapshot %q already: delete it first, or choose another tag", name, tag)
	}
	if err := d.runHelper(ctx, nil, "snapshot", verb, name, tag); err != nil {
		return err
	}
	return d.keepSavedState(name, verb, tag)
}

// keepSavedState keeps the state that the stopped machine name saved
// (Save) in step with what the snapshot operation verb did to its disk:
// taking or deleting a snapshot leaves the disk's content as the state
// knew it, so the state still fits; applying one changes it, so the next
// start boots, saying why.
func (d *Driver) keepSavedState(name, verb, tag string) error {
	inst, err := d.Describe(name)
	if err != nil || inst.Running || !hasSavedState(inst.Dir) {
		return err
	}
	if verb == "apply" {
		return d.discardTo(inst.Dir, fmt.Sprintf("snapshot %q was applied to the stopped VM", tag))
	}
	return restampSavedDisk(inst.Dir)
}

// errNoDisk: the machine never started, so it has no disk to snapshot.
var errNoDisk = errors.New("no disk yet")

// snapshotTarget checks that the machine name can take snapshots now:
// it exists, its VM type has them, it has a disk (errNoDisk), and it is
// running or stopped, not half way between.
func (d *Driver) snapshotTarget(name string) error {
	inst, err := d.Describe(name)
	if err != nil {
		return err
	}
	if !inst.Exists {
		return resource.Errorf(resource.ReasonConflict, "vm %s has no machine yet: start it once first", name)
	}
	if t := limayaml.VMType(inst.VMType); t == limayaml.VZ || t == limayaml.WSL2 {
		return resource.Errorf(resource.ReasonBadRequest, "vm %s runs on %s, which has no snapshots (Lima's %s driver does not take them); only QEMU VMs do", name, t, t)
	}
	if _, err := os.Stat(filepath.Join(inst.Dir, filenames.DiffDisk)); errors.Is(err, fs.ErrNotExist) {
		return errNoDisk
	} else if err != nil {
		return err
	}
	if inst.HostAgentAlive != inst.DriverAlive {
		return resource.Errorf(resource.ReasonConflict, "vm %s is starting or stopping: take, apply or delete snapshots when it runs or is stopped", name)
	}
	return nil
}

// listSnapshots runs `paddock-lima snapshot list NAME` and reads its table.
func (d *Driver) listSnapshots(ctx context.Context, name string) ([]resource.VMSnapshot, error) {
	out, err := d.runHelperOutput(ctx, nil, "snapshot", "list", name)
	if err != nil {
		return nil, err
	}
	snaps, err := ParseSnapshots(string(out), time.Local)
	if err != nil {
		return nil, fmt.Errorf("list the snapshots of %s: %w", name, err)
	}
	if snaps == nil {
		snaps = []resource.VMSnapshot{}
	}
	return snaps, nil
}

// lockSnapshots serialises the snapshot operations on one machine: QEMU
// runs one monitor command at a time, and a list between a check and
// its operation must see what the operation saw.
func (d *Driver) lockSnapshots(name string) (unlock func()) {
	v, _ := snapshotLocks.LoadOrStore(name, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// snapshotLocks holds a mutex per machine name; instance names are unique
// in a process, which drives one Lima home.
var snapshotLocks sync.Map
