package tray

import (
	"fmt"

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
