//go:build !windows

package autostart

import (
	"errors"
	"os"
)

// removeFile removes path, reporting whether it was there.
func removeFile(path string) (bool, error) {
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
