// Package tray puts Paddock in the desktop's system tray with
// fyne.io/systray, which needs no GUI toolkit (over D-Bus on Linux), so
// the tray sleeps until the daemon's watch reports something. The
// settings window, which needs one, runs as a child process (package
// settings) only while it is open.
package tray
