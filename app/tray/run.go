package tray

import (
	"context"
	"errors"

	"fyne.io/systray"

	"paddock.dev/paddock/app/menu"
)

// Run shows the tray until the user quits it.
func Run(opts Options) error {
	if err := checkDesktop(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t := newTray(ctx, systrayHost{}, newDesktop(opts.Log), opts)
	followed := make(chan error, 1)
	systray.Run(func() {
		// Some StatusNotifierItem hosts fail on an item without a title.
		systray.SetTitle("Paddock")
		// The follower's first report replaces this menu at once.
		t.refresh()
		go func() { followed <- t.follow() }()
	}, nil)
	cancel()
	t.closeSettings()
	if err := <-followed; !errors.Is(err, context.Canceled) {
		opts.Log.Error("the tray stopped following the daemon", "err", err)
		return err
	}
	return nil
}

// systrayHost shows the menu with fyne.io/systray: over D-Bus as a
// StatusNotifierItem with a com.canonical.dbusmenu menu on Linux, through
// the shell's notification area on Windows, the menu bar on macOS.
type systrayHost struct{}

func (systrayHost) SetMenu(items []menu.Item, click func(menu.Action)) {
	// Removing the items also ends the goroutines that wait for their
	// clicks: it closes their channels.
	systray.ResetMenu()
	addItems(items, nil, click)
}

func addItems(items []menu.Item, parent *systray.MenuItem, click func(menu.Action)) {
	for _, it := range items {
		if it.Separator {
			if parent != nil {
				parent.AddSeparator()
			} else {
				systray.AddSeparator()
			}
			continue
		}
		var item *systray.MenuItem
		if parent != nil {
			item = parent.AddSubMenuItem(it.Label, "")
		} else {
			item = systray.AddMenuItem(it.Label, "")
		}
		if !it.Enabled {
			item.Disable()
		}
		addItems(it.Children, item, click)
		action := it.Action
		go func() {
			for range item.ClickedCh {
				if action.Do != menu.DoNothing {
					click(action)
				}
			}
		}()
	}
}

func (systrayHost) SetIcon(png []byte) { systray.SetIcon(png) }

func (systrayHost) Quit() { systray.Quit() }
