package lima

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"
)

// savedDir is an instance directory with a disk, a configuration and a
// state saved for them, as Save leaves it.
func savedDir(t *testing.T) (string, *Driver) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("saved states resume on Linux hosts only (resumeSupported)")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filenames.LimaYAML, "cpus: 2\n")
	write(filenames.DiffDisk, "disk")
	write(savedStateFile, "QEVM state")
	d := &Driver{}
	fit, err := d.currentFit(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), "tcg")
	if err != nil {
		t.Fatal(err)
	}
	if fit.Disk, err = stampDisk(dir); err != nil {
		t.Fatal(err)
	}
	fit.StateSize = int64(len("QEVM state"))
	if fit.StateCRC, err = fileCRC(filepath.Join(dir, savedStateFile)); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(fit)
	write(savedFitFile, string(b))
	return dir, d
}

func TestSavedStateResumesWhenItFits(t *testing.T) {
	dir, d := savedDir(t)
	state, why, err := d.takeSavedState(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), "tcg")
	if err != nil || state == "" {
		t.Fatalf("takeSavedState = %q, %q, %v: want the state to resume", state, why, err)
	}
	if b, err := os.ReadFile(state); err != nil || string(b) != "QEVM state" {
		t.Errorf("the state to resume reads %q, %v", b, err)
	}
	// Consumed: a second start, after a crash mid-resume, boots.
	if hasSavedState(dir) {
		t.Error("the saved state is still there for a later start")
	}
	if state, why, _ := d.takeSavedState(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), "tcg"); state != "" || !strings.Contains(why, "no state was saved") {
		t.Errorf("the next start would resume %q (%q), want a boot", state, why)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state a boot does not use is left: %v", err)
	}
}

func TestSavedStateThatDoesNotFitBootsAndSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dir string) error
		accel  string
		why    string
	}{
		{"disk written since", func(dir string) error {
			return os.Chtimes(filepath.Join(dir, filenames.DiffDisk), time.Now(), time.Now().Add(time.Hour))
		}, "tcg", "disk changed"},
		{"truncated state", func(dir string) error { return os.Truncate(filepath.Join(dir, savedStateFile), 4) }, "tcg", "the saved state is 4 bytes, 10 were saved"},
		{"state damaged", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, savedStateFile), []byte("QEVM stale"), 0o644)
		}, "tcg", "damaged"},
		{"state gone", func(dir string) error { return os.Remove(filepath.Join(dir, savedStateFile)) }, "tcg", "the saved state is -1 bytes"},
		{"configuration changed", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, filenames.LimaYAML), []byte("cpus: 4\n"), 0o644)
		}, "tcg", "configuration changed"},
		{"another accelerator", func(string) error { return nil }, "kvm", "saved under tcg and would run under kvm"},
		{"description garbled", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, savedFitFile), []byte("{"), 0o644)
		}, "tcg", "does not read"},
		{"discarded", func(dir string) error {
			return (&Driver{}).discardTo(dir, "spec.cold asks for a full boot")
		}, "tcg", "spec.cold asks for a full boot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := savedDir(t)
			if err := tc.change(dir); err != nil {
				t.Fatal(err)
			}
			state, why, err := d.takeSavedState(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), tc.accel)
			if err != nil || state != "" || !strings.Contains(why, tc.why) {
				t.Fatalf("takeSavedState = %q, %q, %v: want a boot because %q", state, why, err, tc.why)
			}
			for _, f := range []string{savedStateFile, savedFitFile, resumeStateFile, coldReasonFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
					t.Errorf("%s is left after the boot was decided: %v", f, err)
				}
			}
		})
	}
}

// A reason left for the next boot stays beside a later one: a restart's
// stop that powered the machine off says both.
func TestDiscardKeepsAnEarlierReason(t *testing.T) {
	dir, d := savedDir(t)
	if err := d.discardTo(dir, "its guest did not shut down within 1m0s at its last stop and was powered off"); err != nil {
		t.Fatal(err)
	}
	if err := d.discardTo(dir, "its template changed"); err != nil {
		t.Fatal(err)
	}
	_, why, err := d.takeSavedState(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), "tcg")
	if want := "its template changed; its guest did not shut down within 1m0s at its last stop and was powered off"; err != nil || why != want {
		t.Fatalf("the boot says %q (%v), want %q", why, err, want)
	}
	if _, why, _ := d.takeSavedState(context.Background(), dir, limayaml.NewArch(runtime.GOARCH), "tcg"); !strings.Contains(why, "no state was saved") {
		t.Errorf("the next boot says %q, want the reasons consumed", why)
	}
}
