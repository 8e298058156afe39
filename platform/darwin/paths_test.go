package darwin

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/instance/instancetest"
)

// TestSocketPathLimit resolves instances under a macOS-like home: the
// longest socket path an accepted instance produces fits in sun_path, and
// it is the path of Lima's own longest socket name.
func TestSocketPathLimit(t *testing.T) {
	home := "/Users/" + strings.Repeat("a", 24) // a long but ordinary account name
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

	accepted, _ := instancetest.LongestName(t, r, 104, filenames.LongestSock)
	// 103 - len("/Users/" + 24) - len("/.paddock-") - len("/lima/") - 16
	// - len("/ssh.sock.") - 16 = 103 - 31 - 10 - 6 - 16 - 10 - 16 = 14
	if accepted != 14 {
		t.Errorf("under %s names of up to %d characters are accepted, want 14", home, accepted)
	}
	if _, err := instance.Resolve(r, instance.Default); err != nil {
		t.Errorf("the default instance: %v", err)
	}
}
