package lima

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"
)

// saveTimeout bounds a save as a whole: QEMU writes the guest's memory
// at disk speed, so a few GiB take seconds; past this something hangs, and
// the caller stops the machine cold instead.
const saveTimeout = 3 * time.Minute

// quitTimeout bounds the wait for QEMU and the host agent to exit once
// QEMU is told to quit after saving.
const quitTimeout = 20 * time.Second

// Save saves the state of the running QEMU machine name and ends it, so
// that its next start resumes it (vm.Saver). The mechanism is QEMU's own
// migration, to a file in the instance directory, of the paused guest:
// unlike savevm, which keeps the state inside the disk image and reverts
// the disk with it on loadvm, the state stays apart from the disk, a
// truncated or damaged state cannot touch the disk, and the disk is never
// taken back in time; in exchange a state fits only the disk QEMU left,
// which the start checks (takeSavedState).
//
// First the guest flushes its disks and unmounts the host folders it has
// over 9p (QEMU refuses to migrate while one is mounted) or reverse-sshfs
// (whose connection would not survive); WaitRunning mounts them again
// after the resume. A folder still in use in the guest, by a container's
// bind mount for example, fails the save with umount's reason.
//
// On any failure the error says why and the machine may still run, maybe
// paused or without its folders: the caller stops it cold. The save is
// written to a temporary file and described last, so a save cut short
// (the daemon, the host agent or QEMU killed) leaves no state that a start
// would take.
func (d *Driver) Save(ctx context.Context, name string) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	if !inst.Running {
		return fmt.Errorf("vm %s is not running", name)
	}
	cfg, err := inspectConfig(name)
	if err != nil {
		return err
	}
	if t := limayaml.VMType(inst.VMType); t != limayaml.QEMU {
		return fmt.Errorf("a %s VM cannot save its state (Lima's %s driver has no way to); only QEMU VMs resume", t, t)
	}
	if err := resumeSupported(*cfg.Config.Arch); err != nil {
		return err
	}
	// QEMU's monitor serves one client: no snapshot operation meanwhile.
	unlock := d.lockSnapshots(name)
	defer unlock()
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	began := time.Now()
	fit, err := d.currentFit(ctx, inst.Dir, *cfg.Config.Arch, inst.Accel)
	if err != nil {
		return err
	}
	if err := discardSavedState(inst.Dir); err != nil {
		return err
	}
	if err := d.guestRun(ctx, inst, unmountForSaveScript); err != nil {
		return fmt.Errorf("the guest's host folders could not be unmounted for the save: %w", err)
	}
	temp := filepath.Join(inst.Dir, savedStateTemp)
	if err := migrateToFile(ctx, filepath.Join(inst.Dir, filenames.QMPSock), temp); err != nil {
		return err
	}
	quitCtx, cancelQuit := context.WithTimeout(ctx, quitTimeout)
	err = d.waitStopped(quitCtx, name)
	cancelQuit()
	if err != nil {
		// The host agent lingers over its own shutdown: it has nothing
		// left to do for a machine whose QEMU is gone.
		if inst, err = d.Describe(name); err != nil {
			return err
		}
		if err := d.clearLeftovers(inst); err != nil {
			return err
		}
	}
	if err := syncFile(temp); err != nil {
		return err
	}
	if fit.Disk, err = stampDisk(inst.Dir); err != nil {
		return err
	}
	st, err := os.Stat(temp)
	if err != nil {
		return err
	}
	fit.StateSize, fit.Saved = st.Size(), time.Now().UTC()
	if fit.StateCRC, err = fileCRC(temp); err != nil {
		return err
	}
	if err := os.Rename(temp, filepath.Join(inst.Dir, savedStateFile)); err != nil {
		return err
	}
	if err := writeFit(inst.Dir, fit); err != nil {
		return err
	}
	d.Logger.Info("saved the VM's state", "instance", name, "bytes", fit.StateSize, "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// unmountForSaveScript runs as root in the guest before a save: it
// flushes the disks and unmounts the 9p and reverse-sshfs folders,
// recording the 9p ones for remountScript.
const unmountForSaveScript = `set -e
sync
grep -E '^[^ ]+ [^ ]+ 9p ' /proc/mounts >/run/paddock-saved-mounts || true
if grep -qE ' (9p|fuse\.sshfs) ' /proc/mounts; then
	umount -a -t 9p,fuse.sshfs
fi
sync
`
