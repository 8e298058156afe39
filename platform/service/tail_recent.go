//go:build windows || darwin

package service

import "os"

// On Windows and macOS the service writes its own log file; status shows
// its last lines.

// recentFileLines returns the last lines lines of the file at path, or ""
// when it cannot be read.
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
