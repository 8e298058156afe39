//go:build !windows

package service

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// A system service's log directory, created by root at install, belongs
// to the user the service runs as; directories that were there keep their
// owner.
func TestMkdirAllOwned(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a directory to another account needs root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no account nobody to give the directory to: %v", err)
	}
	base := t.TempDir()
	dir := filepath.Join(base, "Library", "Logs", "paddock")
	if err := mkdirAllOwned(dir, "nobody"); err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	for _, d := range []string{filepath.Join(base, "Library"), filepath.Join(base, "Library", "Logs"), dir} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(fi.Sys().(*syscall.Stat_t).Uid); got != uid {
			t.Errorf("%s belongs to uid %d, want nobody's %d", d, got, uid)
		}
	}
	fi, _ := os.Stat(base)
	if got := int(fi.Sys().(*syscall.Stat_t).Uid); got != 0 {
		t.Errorf("the existing %s changed owner to %d", base, got)
	}
}
