package linux

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/instance/instancetest"
)

// TestSocketPathLimit resolves instances under a long home directory: the
// longest socket path an accepted instance produces fits in sun_path, it
// is the path of Lima's own longest socket name, and a name one byte too
// long is refused with the length that fits.
func TestSocketPathLimit(t *testing.T) {
	home := "/home/" + strings.Repeat("a", 32) // useradd's longest name
	t.Setenv("HOME", home)
	r, err := Roots()
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxSocketPath != SocketPathMax {
		t.Fatalf("Roots().MaxSocketPath = %d, want %d", r.MaxSocketPath, SocketPathMax)
	}
	dir := t.TempDir()
	r.Data, r.Log = filepath.Join(dir, "data"), filepath.Join(dir, "log")

	accepted, refusal := instancetest.LongestName(t, r, 108, filenames.LongestSock)
	if refusal == nil || !strings.Contains(refusal.Error(), "at most 11 characters") {
		t.Errorf("a name one character too long: %v, want a refusal naming the 11 characters that fit", refusal)
	}
	// 107 - len("/home/" + 32) - len("/.paddock-") - len("/lima/") - 16
	// - len("/ssh.sock.") - 16 = 107 - 38 - 10 - 6 - 16 - 10 - 16 = 11
	if accepted != 11 {
		t.Errorf("under %s names of up to %d characters are accepted, want 11", home, accepted)
	}
	if _, err := instance.Resolve(r, instance.Default); err != nil {
		t.Errorf("the default instance: %v", err)
	}
}
