package tray

import (
	"slices"
	"testing"
)

// "Open Shell" on Windows: an empty title first, so that start runs the
// quoted program path rather than taking it as the window's title.
func TestStartArgsTitleFirst(t *testing.T) {
	got := startArgs([]string{`C:\Program Files\Paddock\paddock.exe`, "shell", "app"})
	want := []string{"/c", "start", "", `C:\Program Files\Paddock\paddock.exe`, "shell", "app"}
	if !slices.Equal(got, want) {
		t.Errorf("startArgs = %q, want %q", got, want)
	}
}
