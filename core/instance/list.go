package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/gofrs/flock"

	"paddock.dev/paddock/core/atomicfile"
)

// List returns the names of the instances under roots, sorted: those with
// a data directory, and those the registry gave an index to.
func List(roots Roots) ([]string, error) {
	seen := map[string]bool{}
	entries, err := os.ReadDir(roots.Data)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && ValidateName(e.Name()) == nil {
			seen[e.Name()] = true
		}
	}
	file := filepath.Join(roots.Data, "instances.json")
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		registry := map[string]int{}
		if err := json.Unmarshal(data, &registry); err != nil {
			return nil, fmt.Errorf("instance registry %s is damaged: %w", file, err)
		}
		for name := range registry {
			if ValidateName(name) == nil {
				seen[name] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// Forget takes name out of the instance registry under roots, freeing its
// index, as when the instance's files are gone for good; the registry goes
// when it names no instance any more. Forgetting an instance the registry
// does not name (the default instance never is) does nothing.
func Forget(roots Roots, name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	file := filepath.Join(roots.Data, "instances.json")
	lockFile := filepath.Join(roots.Data, "instances.lock")
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	lock := flock.New(lockFile)
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock instance registry: %w", err)
	}
	empty, err := forget(file, name)
	lock.Unlock()
	if err != nil || !empty {
		return err
	}
	if err := os.Remove(lockFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// forget removes name from the registry file and reports whether the
// registry is empty, and so removed, then.
func forget(file, name string) (bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	registry := map[string]int{}
	if err := json.Unmarshal(data, &registry); err != nil {
		return false, fmt.Errorf("instance registry %s is damaged: %w", file, err)
	}
	delete(registry, name)
	if len(registry) == 0 {
		return true, os.Remove(file)
	}
	data, err = json.MarshalIndent(registry, "", "  ")
	if err != nil {
		return false, err
	}
	return false, atomicfile.WriteFile(file, append(data, '\n'), 0o644)
}
