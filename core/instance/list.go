package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
