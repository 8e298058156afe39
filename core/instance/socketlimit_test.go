package instance_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paddock.dev/paddock/core/instance"
)

// macOS takes socket paths of at most 103 bytes (104 with the NUL).
const macSocketMax = 103

// TestLongestSocketPath pins the longest socket path down to the byte:
// Lima's ssh control socket, 16 random bytes appended, in the directory of
// a machine whose name has MachineNameRoom bytes.
func TestLongestSocketPath(t *testing.T) {
	r := instance.Roots{Data: t.TempDir(), Log: t.TempDir(), Short: "/Users/ann"}
	for name, want := range map[string]string{
		"default": "/Users/ann/.paddock/lima/mmmmmmmmmmmmmmmm/ssh.sock.1234567890123456",
		"dev":     "/Users/ann/.paddock-dev/lima/mmmmmmmmmmmmmmmm/ssh.sock.1234567890123456",
	} {
		p, err := instance.Resolve(r, name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.LongestSocket(); got != want {
			t.Errorf("LongestSocket(%s) = %s, want %s", name, got, want)
		}
		for _, s := range []string{p.Socket, filepath.Join(p.ShortDir, "vm-containerd.sock")} {
			if len(s) >= len(want) {
				t.Errorf("%s is as long as the longest socket %s", s, want)
			}
		}
	}
}

// TestSocketPathLimit: an instance name whose longest socket path exceeds
// the OS's limit is refused with the longest name that fits, before it
// takes an index; the longest name that fits is accepted.
func TestSocketPathLimit(t *testing.T) {
	for _, home := range []string{"/Users/ann", "/Users/" + strings.Repeat("u", 30), "/Users/" + strings.Repeat("v", 45)} {
		r := instance.Roots{Data: t.TempDir(), Log: t.TempDir(), Short: home, MaxSocketPath: macSocketMax}
		// "/.paddock-" and the tail "/lima/" + 16 + "/ssh.sock." + 16 bytes.
		room := macSocketMax - len(home) - len("/.paddock-") - len("/lima/mmmmmmmmmmmmmmmm/ssh.sock.1234567890123456")
		if room >= 1 {
			fits := strings.Repeat("a", min(room, 32))
			p, err := instance.Resolve(r, fits)
			if err != nil {
				t.Errorf("home %s: a %d-character name was refused: %v", home, len(fits), err)
			} else if len(p.LongestSocket()) > macSocketMax {
				t.Errorf("home %s: accepted %s of %d bytes", home, p.LongestSocket(), len(p.LongestSocket()))
			}
		}
		if room >= 32 {
			continue // every valid name fits
		}
		long, want := "b", "even with a one-letter instance name"
		if room >= 1 {
			long = strings.Repeat("b", room+1)
			want = "use an instance name of at most " + strconv.Itoa(room) + " characters here"
		}
		_, err := instance.Resolve(r, long)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "socket paths would be too long") {
			t.Errorf("home %s: Resolve(%d characters) = %v, want a refusal with %q", home, len(long), err, want)
		}
		if b, err := os.ReadFile(filepath.Join(r.Data, "instances.json")); err == nil && strings.Contains(string(b), long) {
			t.Errorf("home %s: a refused name took an index: %s", home, b)
		}
	}

	// A home too long for even the default instance says so.
	r := instance.Roots{Data: t.TempDir(), Log: t.TempDir(), Short: "/Users/" + strings.Repeat("w", 60), MaxSocketPath: macSocketMax}
	if _, err := instance.Resolve(r, instance.Default); err == nil || !strings.Contains(err.Error(), "is too long for sockets") {
		t.Errorf("a 67-byte home: %v, want a refusal naming the directory", err)
	}
	// No limit, no check.
	r.MaxSocketPath = 0
	if _, err := instance.Resolve(r, instance.Default); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}
