//go:build unix

package tray

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/app/menu"
)

// Settings… runs the settings executable, not the tray's own binary, with
// the instance and the settings flag; when it fails, its last line of
// stderr says why in a notification.
func TestSettingsRunsTheSettingsExecutable(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	args := filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\necho \"$@\" >" + args + "\necho 'paddock: no window on this host' >&2\nexit 1\n"
	if err := os.WriteFile(f.tray.opts.SettingsExecutable, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.click(menu.LabelSettings)
	if n := f.awaitNote(); n.title != "Paddock" || n.body != "The settings window failed: no window on this host" {
		t.Errorf("notification %q: %q", n.title, n.body)
	}
	got, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("Settings… did not run %s: %v", f.tray.opts.SettingsExecutable, err)
	}
	if want := "--instance test tray --settings"; strings.TrimSpace(string(got)) != want {
		t.Errorf("Settings… ran it with %q, want %q", strings.TrimSpace(string(got)), want)
	}
}
