// Package icon holds the tray's pictures: one per state the tray shows, as
// PNG, which every tray host draws (an SVG shows nothing on some), and the
// application's own icon.
package icon

import (
	_ "embed"

	"fyne.io/fyne/v2"

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

// App is the application's icon, for windows and notifications.
var App = fyne.NewStaticResource("paddock.png", app)

var byState = map[menu.Icon]fyne.Resource{
	menu.IconStopped:  fyne.NewStaticResource("paddock-stopped.png", stopped),
	menu.IconStarting: fyne.NewStaticResource("paddock-starting.png", starting),
	menu.IconRunning:  fyne.NewStaticResource("paddock-running.png", running),
	menu.IconError:    fyne.NewStaticResource("paddock-error.png", failed),
}

// For returns the tray icon of a state.
func For(i menu.Icon) fyne.Resource { return byState[i] }
