package lima

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"paddock.dev/paddock/core/atomicfile"
)

// Pending-create markers live in LimaHome/_paddock/creating/NAME. Lima
// ignores directories that start with an underscore.
const pendingDir = "_paddock/creating"

func (d *Driver) pendingPath(name string) string {
	return filepath.Join(d.LimaHome, pendingDir, name)
}

// markPending records that name is being created, before Lima writes
// anything.
func (d *Driver) markPending(name string) error {
	path := d.pendingPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	stamp := time.Now().UTC().Format(time.RFC3339) + "\n"
	if err := atomicfile.WriteFile(path, []byte(stamp), 0o600); err != nil {
		return fmt.Errorf("record pending create of %s: %w", name, err)
	}
	return nil
}

// Commit removes name's pending-create marker. The caller calls it once it
// has recorded the instance that Create made; until then the instance is
// listed by Uncommitted. Committing a name without a marker succeeds.
func (d *Driver) Commit(name string) error {
	if err := d.init(); err != nil {
		return err
	}
	err := os.Remove(d.pendingPath(name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear pending create of %s: %w", name, err)
	}
	return nil
}

// Uncommitted lists, sorted, the names that Create was called for and that
// were neither committed nor deleted since: after a crash, each is an
// instance that may exist in Lima, whole or in part, without the caller
// having recorded it. The caller either records and commits it or deletes
// it.
func (d *Driver) Uncommitted() ([]string, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(d.LimaHome, pendingDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		// Temporaries of an interrupted marker write are not markers.
		if strings.Contains(e.Name(), ".tmp-") {
			atomicfile.RemoveStale(filepath.Join(d.LimaHome, pendingDir, strings.SplitN(e.Name(), ".tmp-", 2)[0]))
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}
