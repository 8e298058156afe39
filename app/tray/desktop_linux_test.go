package tray

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCopyTextReachesTheClipboard copies as Copy Docker Context does, on a
// real X server, and reads the clipboard back as another program would.
func TestCopyTextReachesTheClipboard(t *testing.T) {
	requireE2E(t, "Xvfb", "xclip")
	dir, err := os.MkdirTemp("", "pdclip")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("DISPLAY", startXvfb(t, dir))
	t.Setenv("WAYLAND_DISPLAY", "")

	d := newDesktop(slog.New(slog.NewTextHandler(io.Discard, nil)))
	const text = "docker context use paddock-e2e"
	if err := d.CopyText(text); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, err = exec.Command("xclip", "-o", "-selection", "clipboard").Output(); err == nil && string(got) == text {
			return
		}
	}
	t.Fatalf("the clipboard holds %q (%v), not %q", strings.TrimSpace(string(got)), err, text)
}
