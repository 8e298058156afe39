//go:build windows || darwin

package service

import "os"

// On Windows and macOS the service writes its own log file; status shows
// its last lines.

// recentFileLines returns the last few lines of the file at path, as many
// as the number lines says at most, or "" when it cannot be read.
func recentFileLines(path string, lines int) string {
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(lastLines(data, lines))
}
