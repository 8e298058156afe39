package autostart

import (
	"os"
	"path/filepath"

	"paddock.dev/paddock/core/atomicfile"
)

// agentPath is the LaunchAgent's file, which launchd reads at login.
func agentPath(e Entry) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "LaunchAgents", e.Label()+".plist"), nil
}

// Install makes launchd start the tray at login and says where. It does
// not start the tray now.
func Install(e Entry) (string, error) {
	path, err := agentPath(e)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, atomicfile.WriteFile(path, e.LaunchAgent(), 0o644)
}

// Remove undoes Install, if it was done, says where, and reports whether
// there was anything to remove.
func Remove(e Entry) (string, bool, error) {
	path, err := agentPath(e)
	if err != nil {
		return "", false, err
	}
	removed, err := removeFile(path)
	return path, removed, err
}
