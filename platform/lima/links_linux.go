package lima

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// linkMu serializes linkExecutable in this process: several instances may
// start at once, and their temporary links are named after the process.
var linkMu sync.Mutex

// linkExecutable makes link a symbolic link to executable. Another process
// (a daemon of an earlier version, say) may make the same link at once, so
// it is made under a name of this process's own and renamed into place.
func linkExecutable(executable, link string) error {
	linkMu.Lock()
	defer linkMu.Unlock()
	if target, err := os.Readlink(link); err == nil && target == executable {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", link, os.Getpid())
	// A leftover of an earlier host agent that had this pid.
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Symlink(executable, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, link)
}

// ShimName is paddock-shim, the small binary that Lima's host agents run
// as the QEMU wrapper and the ssh shim (cmd/paddock/paddock-shim).
const ShimName = "paddock-shim"

// shimExecutable is what the QEMU wrapper's and the ssh shim's links point
// to: paddock-shim where it is installed, as paddock-lima is (beside the
// paddock binary, or in ../lib/paddock or ../libexec/paddock), else the
// paddock binary itself, which holds the same two helpers but takes some
// 40 ms more to start each time a host agent runs one.
func (d *Driver) shimExecutable() string {
	if p, _ := findInHelperDirs(d.Executable, ShimName); p != "" {
		return p
	}
	return d.Executable
}
