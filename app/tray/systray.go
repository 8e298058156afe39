package tray

import "fyne.io/systray"

// systrayItem shows the tray's icon and tooltip, and takes it off the
// desktop, with fyne.io/systray: a StatusNotifierItem over D-Bus on Linux,
// an icon in the shell's notification area on Windows, in the menu bar on
// macOS.
type systrayItem struct{}

func (systrayItem) SetIcon(png []byte) { systray.SetIcon(png) }

func (systrayItem) SetTooltip(text string) { systray.SetTooltip(text) }

func (systrayItem) Quit() { systray.Quit() }

// osHost is the desktop's tray on this OS.
type osHost interface {
	host
	// serve makes the menu show, once systray has put the item on the
	// desktop.
	serve() error
}
