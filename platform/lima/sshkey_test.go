package lima_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima"
)

func TestEnsureUserKey(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed")
	}
	home := t.TempDir()
	dir := filepath.Join(home, filenames.ConfigDir)
	priv, pub := filepath.Join(dir, "user"), filepath.Join(dir, "user.pub")

	if err := lima.EnsureUserKey(home); err != nil {
		t.Fatal(err)
	}
	first := readFile(t, pub)
	if !strings.HasPrefix(first, "ssh-ed25519 ") || readFile(t, priv) == "" {
		t.Fatalf("no whole key pair: user.pub %q", first)
	}
	if err := lima.EnsureUserKey(home); err != nil {
		t.Fatal(err)
	}
	if readFile(t, pub) != first {
		t.Error("a whole key pair was replaced")
	}

	// What a crash in the middle of ssh-keygen leaves: a private key
	// without its public half, and a temporary directory.
	if err := os.Remove(pub); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".paddock-keygen-123")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := lima.EnsureUserKey(home); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(readFile(t, pub), "ssh-ed25519 ") {
		t.Error("a half key pair was not regenerated")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary directory: %v, want it removed", err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
