package tray

import (
	"fmt"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// checkDesktop says why there can be no tray: on Linux the tray lives on
// the session's D-Bus.
func checkDesktop() error {
	// The shared connection, which systray then uses.
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("the tray needs a desktop session's D-Bus: %w", err)
	}
	return nil
}

// systrayItemPath is where fyne.io/systray exports the StatusNotifierItem.
const systrayItemPath = "/StatusNotifierItem"

// awaitItemExported returns once fyne.io/systray exports the item's
// properties, or after timeout. systray runs the ready callback before it
// exports them, and a tooltip or icon set in between, while it reads their
// first values, is kept in memory but never shown: the tray's first state
// could stay on screen for good. Once the exported properties exist, every
// change is shown, and systray then signals each change on the bus: this
// sets the tooltip until the signal comes back. Nothing else may set the
// tooltip meanwhile.
func awaitItemExported(timeout time.Duration) {
	conn, err := dbus.SessionBus()
	if err != nil || len(conn.Names()) == 0 {
		return
	}
	match := []dbus.MatchOption{
		dbus.WithMatchSender(conn.Names()[0]),
		dbus.WithMatchObjectPath(systrayItemPath),
		dbus.WithMatchInterface("org.freedesktop.DBus.Properties"),
		dbus.WithMatchMember("PropertiesChanged"),
	}
	if err := conn.AddMatchSignal(match...); err != nil {
		return
	}
	defer conn.RemoveMatchSignal(match...)
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)
	deadline := time.After(timeout)
	retry := time.NewTicker(100 * time.Millisecond)
	defer retry.Stop()
	for {
		systray.SetTooltip("Paddock")
		select {
		case s := <-signals:
			if s != nil && s.Path == systrayItemPath && s.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" {
				return
			}
		case <-retry.C:
		case <-deadline:
			return
		}
	}
}

// linuxHost is the tray on a Linux desktop: systray's StatusNotifierItem,
// with the menu the tray serves itself.
type linuxHost struct {
	systrayItem
	*dbusMenu
}

func newHost() osHost { return linuxHost{dbusMenu: newDBusMenu()} }

// serve puts the tray's menu in the place of systray's, on the session
// bus connection systray shares, once systray has exported its own (see
// awaitItemExported).
func (h linuxHost) serve() error {
	conn, err := dbus.SessionBus()
	if err != nil {
		return err
	}
	return h.export(conn)
}
