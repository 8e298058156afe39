// Package icon holds the tray's pictures: one per state the tray shows, as
// PNG, which every tray host draws (an SVG shows nothing on some), and the
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

// For returns the tray icon of a state, as PNG.
func For(i menu.Icon) []byte { return byState[i] }
