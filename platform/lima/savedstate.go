package lima

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/atomicfile"
)

// A saved state is what a stop leaves of a running QEMU machine so that
// its next start resumes it (Save; Start; WaitRunning): QEMU's migration
// stream of the paused guest in savedStateFile, and savedFitFile, written
// last, which says what the state fits. A start uses the state only when
// the fit file is there and fits the machine as it is now; whatever it
// decides, it consumes both before QEMU runs, so that a state is loaded at
// most once and never into a disk that went on from it. How the last start
// went (resumed, or booted and why) stays in bootFile for Inspect.
const (
	savedStateFile  = "paddock-saved.state"
	savedFitFile    = "paddock-saved.json"
	bootFile        = "paddock-boot.json"
	coldReasonFile  = "paddock-cold-reason"
	savedStateTemp  = savedStateFile + ".tmp"
	resumeStateFile = "paddock-resuming.state"
	// guestRunsFile is made once QEMU loaded the state and the guest
	// runs, for the ssh shim (EnvSSHResumed). It stays while the machine
	// runs, so that an ssh that the host agent runs later without a master
	// (the master's connection lost) does not wait for it; the next start
	// removes it first.
	guestRunsFile = "paddock-guest-runs"
)

// savedFit is what a saved state fits: the QEMU that saved it, the
// accelerator, the machine's configuration, and the disk as QEMU left it.
type savedFit struct {
	QEMU      string    `json:"qemu"`
	Accel     string    `json:"accel"`
	Template  string    `json:"template"`
	Disk      diskStamp `json:"disk"`
	StateSize int64     `json:"stateSize"`
	StateCRC  uint32    `json:"stateCRC"`
	Saved     time.Time `json:"saved"`
}

// diskStamp tells whether a disk changed: its size and modification time.
type diskStamp struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
}

// BootRecord is how a machine's last start went: it resumed, or it
// booted for Reason.
type BootRecord struct {
	Resumed bool   `json:"resumed"`
	Reason  string `json:"reason,omitempty"`
}

// stampDisk stamps the machine's disk in dir.
func stampDisk(dir string) (diskStamp, error) {
	st, err := os.Stat(filepath.Join(dir, filenames.DiffDisk))
	if err != nil {
		return diskStamp{}, err
	}
	return diskStamp{Size: st.Size(), ModTime: st.ModTime().UTC()}, nil
}

// templateDigest is the digest of the machine's lima.yaml in dir: its
// kernel, image, sizes and mounts.
func templateDigest(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, filenames.LimaYAML))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// currentFit is what a state saved now would fit, but for the disk and
// the state's size, which only exist once QEMU is gone.
func (d *Driver) currentFit(ctx context.Context, dir string, arch limayaml.Arch, accel string) (savedFit, error) {
	version, err := qemuVersion(ctx, arch)
	if err != nil {
		return savedFit{}, err
	}
	tmpl, err := templateDigest(dir)
	if err != nil {
		return savedFit{}, err
	}
	return savedFit{QEMU: version, Accel: accel, Template: tmpl}, nil
}

// misfit says why the state saved with fit cannot resume in the machine
// as now, or "" when it can.
func misfit(saved, now savedFit, disk diskStamp, stateSize int64) string {
	switch {
	case saved.Template != now.Template:
		return "the VM's configuration changed since its state was saved"
	case saved.QEMU != now.QEMU:
		return fmt.Sprintf("QEMU changed since the VM's state was saved (%q, now %q)", saved.QEMU, now.QEMU)
	case saved.Accel != now.Accel:
		return fmt.Sprintf("the VM's state was saved under %s and would run under %s", saved.Accel, now.Accel)
	case saved.Disk.Size != disk.Size || !saved.Disk.ModTime.Equal(disk.ModTime):
		return "the VM's disk changed since its state was saved"
	case saved.StateSize != stateSize:
		return fmt.Sprintf("the saved state is %d bytes, %d were saved", stateSize, saved.StateSize)
	}
	return ""
}

// takeSavedState decides how the machine in dir starts and consumes its
// saved state: it returns the file QEMU is to resume from, or "" and why
// the machine boots instead. Either way no saved state is left to a later
// start; the one to resume is renamed to resumeStateFile, which
// WaitRunning removes once the machine runs.
func (d *Driver) takeSavedState(ctx context.Context, dir string, arch limayaml.Arch, accel string) (state, coldReason string, err error) {
	coldReason = "no state was saved at its last stop"
	if _, err := os.Stat(filepath.Join(dir, filenames.DiffDisk)); errors.Is(err, fs.ErrNotExist) {
		coldReason = "this is its first start"
	}
	if b, err := os.ReadFile(filepath.Join(dir, coldReasonFile)); err == nil {
		coldReason = string(b)
	}
	defer func() {
		if err == nil && state == "" {
			err = discardSavedState(dir)
		}
	}()
	if err := resumeSupported(arch); err != nil {
		return "", err.Error(), nil
	}
	saved, err := readFit(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", coldReason, nil
	case errors.Is(err, errFitUnreadable):
		return "", err.Error(), nil
	case err != nil:
		return "", "", err
	}
	now, err := d.currentFit(ctx, dir, arch, accel)
	if err != nil {
		return "", "", err
	}
	disk, err := stampDisk(dir)
	if err != nil {
		return "", "", err
	}
	var size int64 = -1
	if st, err := os.Stat(filepath.Join(dir, savedStateFile)); err == nil {
		size = st.Size()
	}
	if why := misfit(saved, now, disk, size); why != "" {
		return "", why, nil
	}
	// QEMU would load a state damaged inside a page of memory as it is,
	// into a guest that then writes to its disk.
	if sum, err := fileCRC(filepath.Join(dir, savedStateFile)); err != nil {
		return "", "", err
	} else if sum != saved.StateCRC {
		return "", "the saved state is damaged (its checksum differs from the one saved)", nil
	}
	state = filepath.Join(dir, resumeStateFile)
	if err := os.Rename(filepath.Join(dir, savedStateFile), state); err != nil {
		return "", "", err
	}
	if err := os.Remove(filepath.Join(dir, savedFitFile)); err != nil {
		return "", "", err
	}
	return state, "", nil
}

// discardSavedState removes whatever the machine in dir has of a saved
// state, and the reason a later start was to give for booting.
func discardSavedState(dir string) error {
	var errs []error
	for _, f := range []string{savedFitFile, savedStateFile, savedStateTemp, resumeStateFile, coldReasonFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// hasSavedState reports whether the machine in dir has a saved state for
// its next start to try.
func hasSavedState(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, savedFitFile))
	return err == nil
}

// Discard drops the machine name's saved state, if any, so that its next
// start boots, giving why as the reason (vm.Saver).
func (d *Driver) Discard(name, why string) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	return d.discardTo(inst.Dir, why)
}

// discardTo drops the saved state of the machine in dir, leaving why for
// its next start to report, beside a reason already left (a restart's stop
// that ended in a power-off keeps saying so).
func (d *Driver) discardTo(dir, why string) error {
	if earlier, err := os.ReadFile(filepath.Join(dir, coldReasonFile)); err == nil && len(earlier) > 0 && string(earlier) != why {
		why += "; " + string(earlier)
	}
	if err := discardSavedState(dir); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, coldReasonFile), []byte(why), 0o644)
}

// writeBoot records how the machine in dir started.
func writeBoot(dir string, rec BootRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, bootFile), b, 0o644)
}

// readBoot reads how the machine in dir last started; a machine started
// by an earlier version has no record, and reads as booted.
func readBoot(dir string) (BootRecord, error) {
	var rec BootRecord
	b, err := os.ReadFile(filepath.Join(dir, bootFile))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return BootRecord{}, fmt.Errorf("%s: %w", filepath.Join(dir, bootFile), err)
	}
	return rec, nil
}

// takeStart decides how the machine inst starts, resuming or booting, and
// records it (bootFile); a machine that boots loses its saved state.
func (d *Driver) takeStart(ctx context.Context, inst *limastore.Instance, accel string) (BootRecord, error) {
	var rec BootRecord
	if err := os.Remove(filepath.Join(inst.Dir, guestRunsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rec, err
	}
	if t := *inst.Config.VMType; t != limayaml.QEMU {
		rec.Reason = fmt.Sprintf("Lima's %s driver boots its VMs every time", t)
		if err := discardSavedState(inst.Dir); err != nil {
			return rec, err
		}
	} else {
		state, why, err := d.takeSavedState(ctx, inst.Dir, *inst.Config.Arch, accel)
		if err != nil {
			return rec, err
		}
		rec = BootRecord{Resumed: state != "", Reason: why}
	}
	return rec, writeBoot(inst.Dir, rec)
}

// crcTable is CRC-32C's, which CPUs compute in hardware: a saved state of
// a GiB is checked in a fraction of a second.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// fileCRC is the CRC-32C of the file's content.
func fileCRC(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(crcTable)
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// restampSavedDisk records the disk of the machine in dir as the one its
// saved state fits, after an operation that changed the disk image but
// not what the guest sees in it (a snapshot taken or deleted).
func restampSavedDisk(dir string) error {
	fit, err := readFit(dir)
	switch {
	case errors.Is(err, errFitUnreadable):
		return discardSavedState(dir) // takeSavedState would boot it anyway
	case err != nil:
		return err
	}
	if fit.Disk, err = stampDisk(dir); err != nil {
		return err
	}
	return writeFit(dir, fit)
}

// errFitUnreadable is readFit's error for a description that is there but
// does not parse.
var errFitUnreadable = errors.New("the saved state's description does not read")

// readFit reads the description of the state saved in dir.
func readFit(dir string) (savedFit, error) {
	var fit savedFit
	b, err := os.ReadFile(filepath.Join(dir, savedFitFile))
	if err != nil {
		return fit, err
	}
	if err := json.Unmarshal(b, &fit); err != nil {
		return fit, fmt.Errorf("%w: %w", errFitUnreadable, err)
	}
	return fit, nil
}

// writeFit describes the state saved in dir as fit, whole or not at all:
// the description is what makes a saved state count.
func writeFit(dir string, fit savedFit) error {
	b, err := json.Marshal(fit)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, savedFitFile), b, 0o644)
}
