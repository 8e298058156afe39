// Package atomicfile writes files that appear whole or not at all: data goes
// to a temporary file in the same directory, is synced, and is renamed over
// the target. Temporaries that an earlier crash left behind are removed.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// tempInfix separates a target's name from the random suffix of its
// temporaries, so that stale ones can be recognised and removed.
const tempInfix = ".tmp-"

// WriteFile writes data to path with the given permissions so that readers
// see either the old content or the new, never a part. The file's mode is
// perm from the moment it has content, so a secret is never readable by
// others. Processes that could write the same path at once must hold a lock
// around WriteFile: each removes the other's stale-looking temporaries.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	RemoveStale(path)
	f, err := os.CreateTemp(dir, base+tempInfix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("set mode of %s: %w", tmp, err)
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// RemoveStale removes temporaries of path that an interrupted WriteFile left
// behind. Errors are ignored: a temporary that cannot be removed now is
// tried again on the next write.
func RemoveStale(path string) {
	matches, _ := filepath.Glob(path + tempInfix + "*")
	for _, m := range matches {
		os.Remove(m)
	}
}
