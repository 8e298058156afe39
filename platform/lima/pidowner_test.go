package lima

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// On macOS and Windows a live pid counts as the instance's only when its
// process started before its pid file was written: a stale pid file whose
// pid another program was given since must not make Start skip the VM.
func TestWrotePIDFile(t *testing.T) {
	written := time.Date(2025, 3, 4, 10, 0, 0, 500_000_000, time.UTC)
	for _, c := range []struct {
		name             string
		started, written time.Time
		want             bool
	}{
		{"host agent started, then wrote its pid file", written.Add(-200 * time.Millisecond), written, true},
		{"QEMU wrote its -pidfile a second after it started", written.Add(-time.Second), written, true},
		{"VZ pid file written minutes after the host agent started", written.Add(-3 * time.Minute), written, true},
		{"HFS+ rounded the file's time down to the second", written.Add(400 * time.Millisecond), written.Truncate(time.Second), true},
		{"pid reused by a program started after the file", written.Add(5 * time.Minute), written, false},
		{"pid reused a few seconds later", written.Add(3 * time.Second), written, false},
		{"pid reused after a reboot, days later", written.Add(72 * time.Hour), written, false},
		{"no start time to compare", time.Time{}, written, true},
	} {
		if got := wrotePIDFile(c.started, c.written); got != c.want {
			t.Errorf("%s: started %v, file written %v: %v, want %v", c.name, c.started, c.written, got, c.want)
		}
	}
}

// pidFileOwner compares the pid's start time with the pid file's own
// modification time, and a pid that does not run, or a pid file that is
// gone, belongs to no instance.
func TestPIDFileOwner(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ha.pid")
	if err := os.WriteFile(file, []byte("4242\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	written := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(file, written, written); err != nil {
		t.Fatal(err)
	}
	startedAt := func(at time.Time) func(int) (time.Time, error) {
		return func(pid int) (time.Time, error) {
			if pid != 4242 {
				t.Errorf("start time asked of pid %d, want 4242", pid)
			}
			return at, nil
		}
	}
	if !pidFileOwner(4242, file, startedAt(written.Add(-time.Second))) {
		t.Error("the process that wrote the pid file does not count as alive")
	}
	if pidFileOwner(4242, file, startedAt(written.Add(time.Hour))) {
		t.Error("a program given the stale file's pid an hour later counts as the instance's")
	}
	gone := func(int) (time.Time, error) { return time.Time{}, errors.New("no such process") }
	if pidFileOwner(4242, file, gone) {
		t.Error("a pid that does not run counts as alive")
	}
	if pidFileOwner(4242, filepath.Join(t.TempDir(), "removed.pid"), startedAt(written.Add(-time.Second))) {
		t.Error("a pid whose pid file is gone counts as alive")
	}
}
