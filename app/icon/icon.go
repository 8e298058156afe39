// Package icon holds the tray's pictures: one per state the tray shows, as
// PNG, which every tray host but Windows's draws (an SVG shows nothing on
// some), and as .ico made of those PNGs for Windows's; and the
// application's own icon.
package icon

import (
	_ "embed"

	"paddock.dev/paddock/app/menu"
)

var (
	//go:embed stopped.png
	stopped []byte
	//go:embed starting.png
	starting []byte
	//go:embed running.png
	running []byte
	//go:embed error.png
	failed []byte
	//go:embed paddock.png
	app []byte
)

// App is the application's icon, as PNG, for windows and notifications.
func App() []byte { return app }

var byState = map[menu.Icon][]byte{
	menu.IconStopped:  stopped,
	menu.IconStarting: starting,
	menu.IconRunning:  running,
	menu.IconError:    failed,
}

// For returns the tray icon of a state as this OS's tray loads it: .ico
// (ICO) on Windows, PNG elsewhere.
func For(i menu.Icon) []byte {
	if trayICO {
		return ICO(i)
	}
	return byState[i]
}
