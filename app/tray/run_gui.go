//go:build cgo

package tray

import (
	"context"
	"errors"

	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"

	"paddock.dev/paddock/app/icon"
)

var errNoTray = errors.New("this desktop has no system tray Fyne can use")

// AppID is the tray's application ID, which names its settings and its
// notifications.
const AppID = "dev.paddock.tray"

// Run shows the tray until the user quits it.
func Run(opts Options) error {
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(icon.App)
	desk, ok := a.(desktop.App)
	if !ok {
		return errNoTray
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t := newTray(ctx, a, desk, opts)
	// The tray must exist before the loop runs; the follower's first
	// report replaces this menu at once.
	t.refresh()
	followed := make(chan error, 1)
	go func() {
		err := t.follow()
		if !errors.Is(err, context.Canceled) {
			opts.Log.Error("the tray stopped following the daemon", "err", err)
		}
		followed <- err
	}()
	a.Run()
	cancel()
	<-followed
	return nil
}
