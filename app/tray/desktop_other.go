//go:build !linux

package tray

import "time"

// checkDesktop finds nothing missing: the tray's host is part of the OS.
func checkDesktop() error { return nil }

// awaitItemExported returns at once: on Windows and macOS fyne.io/systray
// makes the item before it runs the ready callback, and a tooltip or icon
// set from then on goes straight to it.
func awaitItemExported(time.Duration) {}
