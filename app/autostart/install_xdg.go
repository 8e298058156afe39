//go:build !darwin && !windows

package autostart

import (
	"os"
	"path/filepath"

	"paddock.dev/paddock/core/atomicfile"
)

// dir is the XDG autostart directory: $XDG_CONFIG_HOME/autostart, by
// default ~/.config/autostart.
func dir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "autostart"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "autostart"), nil
}

// Install makes the desktop start the tray at login and says where.
func Install(e Entry) (string, error) {
	d, err := dir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(d, e.DesktopFileName())
	return path, atomicfile.WriteFile(path, e.Desktop(), 0o644)
}

// Remove undoes Install, if it was done, says where, and reports whether
// there was anything to remove.
func Remove(e Entry) (string, bool, error) {
	d, err := dir()
	if err != nil {
		return "", false, err
	}
	path := filepath.Join(d, e.DesktopFileName())
	removed, err := removeFile(path)
	return path, removed, err
}
