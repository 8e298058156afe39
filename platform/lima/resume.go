package lima

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

// WaitRunning follows the start that Start began until the machine runs
// (waitRunning says how it fails). A machine that resumes a saved state
// is let run once QEMU loaded it (continueWhenLoaded) and at once, beside
// Lima's own checks, gets the host's time, its host folders mounted
// again and a fresh guest agent (afterResume); its state file is then
// removed. A resume that fails (QEMU cannot load the state: a truncated
// file, a state of another machine) is not the start's failure: the
// machine is stopped and booted, and its boot record says why.
func (d *Driver) WaitRunning(ctx context.Context, name string) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	rec, err := readBoot(inst.Dir)
	if err != nil {
		return err
	}
	if !rec.Resumed {
		return d.waitRunning(ctx, name)
	}
	// The host agent wrote the ssh configuration of this start before it
	// started QEMU, so once QEMU runs the guest, ssh reaches it.
	resumed, cancel := context.WithCancel(ctx)
	defer cancel()
	after := make(chan error, 1)
	go func() {
		began := time.Now()
		if err := continueWhenLoaded(resumed, filepath.Join(inst.Dir, filenames.QMPSock)); err != nil {
			after <- fmt.Errorf("let the resumed guest run: %w", err)
			return
		}
		d.Logger.Debug("the saved state is loaded; the guest runs", "instance", name, "took", time.Since(began))
		if err := os.WriteFile(filepath.Join(inst.Dir, guestRunsFile), nil, 0o644); err != nil {
			after <- err
			return
		}
		after <- d.afterResume(resumed, inst)
		d.Logger.Debug("the resumed guest has the host's time and its folders", "instance", name, "took", time.Since(began))
	}()
	err = d.waitRunning(ctx, name)
	if err == nil {
		err = <-after
	}
	cancel()
	if err == nil || ctx.Err() != nil {
		return errors.Join(err, discardSavedState(inst.Dir))
	}
	why := "resuming the saved state failed: " + err.Error()
	d.Logger.Warn("resuming failed; booting the VM instead", "instance", name, "err", err)
	if err := d.Stop(ctx, name, 0); err != nil {
		return err
	}
	if err := d.discardTo(inst.Dir, why); err != nil {
		return err
	}
	if err := d.Start(ctx, name); err != nil {
		return err
	}
	return d.waitRunning(ctx, name)
}

// afterResume brings a guest that resumed up to date: its clock, which
// stood still while it was saved, and its host folders, which the save
// unmounted. It speaks through the host agent's ssh master once that is up
// (at most masterWait after the guest runs): a login of its own, beside
// the master's, doubled what sshd does as the guest resumes, and delayed
// Lima's checks. Its guest agent runs on as it was and serves the new host
// agent: restarted here, it was away for the 3 s its start takes under
// emulation, and a host agent that connected then waited 10 s to try
// again.
func (d *Driver) afterResume(ctx context.Context, inst Instance) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	master, stop := context.WithTimeout(ctx, masterWait)
	bootwatch.WaitForFile(master, filepath.Join(inst.Dir, filenames.SSHSock))
	stop()
	if err := d.guestRunAtHostTime(ctx, inst, afterResumeScript); err != nil {
		return fmt.Errorf("after resuming: %w", err)
	}
	if err := os.Remove(filepath.Join(inst.Dir, resumeStateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// masterWait bounds how long afterResume waits for the host agent's ssh
// master before it logs in on its own.
const masterWait = 20 * time.Second

// afterResumeScript runs as root in a guest that resumed, once its clock
// is the host's. The folders are those unmountForSaveScript recorded, in
// /proc/mounts' form (octal escapes).
const afterResumeScript = `set -e
if [ -s /run/paddock-saved-mounts ]; then
	while read -r src point type opts rest; do
		src=$(printf '%b' "$src")
		point=$(printf '%b' "$point")
		mountpoint -q "$point" || mount -t "$type" -o "$opts" "$src" "$point"
	done </run/paddock-saved-mounts
	rm -f /run/paddock-saved-mounts
fi
`
