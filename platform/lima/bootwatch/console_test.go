package bootwatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
)

func TestConsoleFindsPanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	w := &Console{Path: path}
	if _, failed := w.Check(); failed != "" {
		t.Fatal("a missing log panicked")
	}
	appendTo := func(s string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	appendTo("[    0.000000] Linux version 6.1.0\n[    1.1] booting\ninitramfs: no device LABEL=x\n[    1.607102] Kernel pan")
	if _, failed := w.Check(); failed != "" {
		t.Fatal("a boot without a complete panic line panicked")
	}
	appendTo("ic - not syncing: Attempted to kill init! exitcode=0x00000100\n[    1.6] CPU: 0 PID: 1\n")
	lines, failed := w.Check()
	want := []string{"Linux version 6.1.0", "booting", "initramfs: no device LABEL=x", "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100"}
	if failed != ReasonPanicked || !slices.Equal(lines, want) {
		t.Fatalf("check = %q, %q; want %q", lines, failed, want)
	}

	// QEMU writes the log afresh at the next boot.
	if err := os.WriteFile(path, []byte("[    0.0] Linux\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, failed := w.Check(); failed != "" {
		t.Fatalf("a new boot's log failed: %q", lines)
	}
}

// Until QEMU starts, the log is the previous boot's, which may end in a
// panic: it is not read.
func TestConsoleSkipsThePreviousBootsLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	if err := os.WriteFile(path, []byte("Kernel panic - not syncing: an earlier boot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	w := &Console{Path: path, NotBefore: time.Now().Add(-time.Second)}
	if lines, failed := w.Check(); failed != "" {
		t.Fatalf("the previous boot's log was read: %q", lines)
	}
	if err := os.WriteFile(path, []byte("Kernel panic - not syncing: this boot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, failed := w.Check(); failed != ReasonPanicked || lines[0] != "Kernel panic - not syncing: this boot" {
		t.Fatalf("this boot's panic: %q, %q", lines, failed)
	}
}

// The guest image's lima-init says why it failed and that it failed, on
// the console through journald; systemd's own line, coloured and cut to the
// console's width, is not what is matched. SSH will not come up, so the
// boot fails now.
func TestConsoleFindsAFailedLimaInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	log := "[    2.100000] systemd[1]: Starting lima-init.service - Apply Lima's cidata (user, ssh keys, hostname, mounts)...\n" +
		"         Starting \x1b[0;1;39mlima-init.service\x1b[0m - Apply Lima's cidata (user, ssh keys, hostname, mounts)...\n" +
		"[   22.312345] lima-init[231]: lima-init: cannot mount the host folder /home/u (mount0, 9p): mount: /home/u: bad option.\n" +
		"[   22.318001] lima-init[231]: lima-init: failed (exit 1)\n" +
		"[\x1b[0;1;31mFAILED\x1b[0m] Failed to start \x1b[0;1;39mlima-init.…user, ssh keys, hostname, mounts).\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, failed := (&Console{Path: path}).Check()
	if failed != ReasonInitFailed ||
		!slices.Contains(lines, "lima-init: cannot mount the host folder /home/u (mount0, 9p): mount: /home/u: bad option.") ||
		lines[len(lines)-1] != "lima-init: failed (exit 1)" {
		t.Fatalf("check = %q, %q", lines, failed)
	}
}

// systemd's status lines for the units that needed lima-init can reach the
// console between lima-init's reason and its last line, as journald
// forwards lima-init's lines later: the reason stays among the lines kept.
func TestConsoleKeepsLimaInitsReasonPastSystemdsStatusLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	log := "[   22.312345] lima-init[231]: lima-init: cannot mount the host folder /home/u (mount0, 9p): mount: /home/u: bad option.\n" +
		"[\x1b[0;1;31mFAILED\x1b[0m] Failed to start \x1b[0;1;39mlima-init.…user, ssh keys, hostname, mounts).\n" +
		"[\x1b[0;1;38;5;185mDEPEND\x1b[0m] Dependency failed for \x1b[0;1;39mlima…boot scripts from the cidata disk.\n" +
		"[\x1b[0;1;38;5;185mDEPEND\x1b[0m] Dependency failed for \x1b[0;1;39mlima… agent before Lima's boot scripts.\n" +
		"[  OK  ] Reached target multi-user.target.\n" +
		"[   22.318001] lima-init[231]: lima-init: failed (exit 1)\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, failed := (&Console{Path: path}).Check()
	want := []string{"lima-init: cannot mount the host folder /home/u (mount0, 9p): mount: /home/u: bad option.", "lima-init: failed (exit 1)"}
	if failed != ReasonInitFailed || !slices.Equal(lines, want) {
		t.Fatalf("check = %q, %q; want %q", lines, failed, want)
	}
}

// Lima's boot.sh says on the console, through lima-boot.service, when it
// ends; its lines before that, and a script's output that merely mentions
// the words, are not its end.
func TestConsoleFindsTheEndOfLimasBootScripts(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	log := "[   26.196538] sh[244]: LIMA 2026-12-05T23:38:27+00:00| Executing /mnt/lima-cidata/boot/40-install-containerd.sh\n" +
		"[   26.301000] sh[457]: + echo '| Exiting with code 0'\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Console{Path: path}
	if w.Check(); w.BootDone() {
		t.Fatal("boot done before boot.sh's last line")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[   26.677099] sh[244]: LIMA 2026-12-05T23:38:27+00:00| Exiting with code 1\n")
	f.Close()
	if _, failed := w.Check(); !w.BootDone() || failed != "" {
		t.Fatalf("after boot.sh's last line: done %v, failed %q", w.BootDone(), failed)
	}
}
