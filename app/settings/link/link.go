// Package link is what the tray and its settings window, a child process
// of the tray, say to each other: one line each way. It has no GUI code, so
// the tray imports it without the window's toolkit.
package link

import (
	"fmt"
	"strconv"
	"strings"
)

// Raise, on the window's standard input, asks it to come to the front.
// The end of its standard input (the tray quit) closes the window.
const Raise = "raise"

// Applied is the line the window writes on its standard output when Apply
// made the App's generation: the tray announces the App's settling with it.
func Applied(generation int64) string { return fmt.Sprintf("applied %d", generation) }

// ParseApplied reads an Applied line.
func ParseApplied(line string) (int64, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "applied ")
	if !ok {
		return 0, false
	}
	g, err := strconv.ParseInt(rest, 10, 64)
	return g, err == nil && g > 0
}
