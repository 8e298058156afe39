package tray

import (
	"context"
	"errors"
	"time"

	"fyne.io/systray"
)

// Run shows the tray until the user quits it.
func Run(opts Options) error {
	if err := checkDesktop(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHost()
	t := newTray(ctx, h, newDesktop(opts.Log), opts)
	followed := make(chan error, 1)
	systray.Run(func() {
		// Some StatusNotifierItem hosts fail on an item without a title.
		systray.SetTitle("Paddock")
		awaitItemExported(10 * time.Second)
		if err := h.serve(); err != nil {
			opts.Log.Error("the tray cannot show its menu", "err", err)
		}
		// The follower's first report replaces this menu at once.
		t.refresh()
		go func() {
			err := t.follow()
			if !errors.Is(err, context.Canceled) {
				opts.Log.Error("the tray stopped following the daemon; its menu no longer changes", "err", err)
			}
			followed <- err
		}()
	}, nil)
	cancel()
	// An open settings window closes when this process ends: its
	// standard input ends.
	if err := <-followed; !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
