package windows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/core/instance"
)

// Roots under a profile with a space, as Windows makes for "Jane Doe": the
// directories are under %LOCALAPPDATA%\Paddock, the short one under the
// profile, two instances share none of them, and the socket limit holds.
// (Paths are joined with this OS's separator; on Windows it is \.)
func TestRootsKeepInstancesApart(t *testing.T) {
	tmp, err := os.MkdirTemp("", "w") // short, as C:\Users is
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	profile := filepath.Join(tmp, "Users", "Jane Doe")
	t.Setenv("HOME", profile) // os.UserHomeDir here; USERPROFILE on Windows
	t.Setenv("LOCALAPPDATA", filepath.Join(profile, "AppData", "Local"))
	r, err := Roots()
	if err != nil {
		t.Fatal(err)
	}
	if r.Data != filepath.Join(profile, "AppData", "Local", "Paddock", "data") || r.Log != filepath.Join(profile, "AppData", "Local", "Paddock", "logs") ||
		r.Short != profile || r.MaxSocketPath != SocketPathMax {
		t.Fatalf("Roots() = %+v", r)
	}
	seen := map[string]string{}
	for _, name := range []string{instance.Default, "dev"} {
		p, err := instance.Resolve(r, name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.ShortDir, "Jane Doe") || len(p.LongestSocket()) > SocketPathMax {
			t.Errorf("%s: short directory %s, longest socket %d bytes", name, p.ShortDir, len(p.LongestSocket()))
		}
		for key, path := range p.Map() {
			if key == "instance" || key == "index" {
				continue
			}
			if other, ok := seen[path]; ok {
				t.Errorf("instances %s and %s share %s %s", other, name, key, path)
			}
			seen[path] = name
		}
	}
	t.Setenv("LOCALAPPDATA", "")
	if _, err := Roots(); err == nil || !strings.Contains(err.Error(), "LOCALAPPDATA") {
		t.Errorf("without LOCALAPPDATA: %v", err)
	}
}
