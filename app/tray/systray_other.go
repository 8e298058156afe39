//go:build !linux

package tray

import (
	"sync"

	"fyne.io/systray"

	"paddock.dev/paddock/app/menu"
)

// systrayHost shows the menu with fyne.io/systray, through the shell's
// notification area on Windows and the menu bar on macOS (on Linux the
// tray serves its menu itself: dbusMenu).
//
// A menu of the same items as the one shown (the same keys, separators
// and submenus, in the same places) is shown by changing the items' labels
// and states in place; only other items rebuild the menu. So the OS's ids
// stay valid across most changes, a click that arrives while the status
// line changes is not sent to an item being removed, and an item keeps its
// action (a key means one action).
type systrayHost struct {
	systrayItem
	mu      sync.Mutex
	shape   []menu.Item // the items shown, for their keys
	items   []*systray.MenuItem
	actions []menu.Action // by the index of items
	// built counts the menus built: a click on an item of an earlier menu,
	// taken from its channel while the menu was rebuilt, is dropped rather
	// than given the action of the new item at its index.
	built int
	click func(menu.Action)
}

func (h *systrayHost) SetMenu(items []menu.Item, click func(menu.Action)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.click = click
	if sameItems(h.shape, items) {
		var shown []menu.Item
		walk(h.shape, func(it menu.Item) { shown = append(shown, it) })
		i := 0
		walk(items, func(it menu.Item) {
			// Each change is a signal to the tray host: only real ones.
			if it.Label != shown[i].Label {
				h.items[i].SetTitle(it.Label)
			}
			switch {
			case it.Enabled && !shown[i].Enabled:
				h.items[i].Enable()
			case !it.Enabled && shown[i].Enabled:
				h.items[i].Disable()
			}
			h.actions[i] = it.Action
			i++
		})
		h.shape = items
		return
	}
	// Removing the items also ends the goroutines that wait for their
	// clicks: it closes their channels. fyne.io/systray (v1.12.2 too)
	// sends a click on an item's channel after it let go of its lock, so
	// a click that arrives just as its item is removed can panic in
	// systray's handler; that is why only other items (the daemon came or
	// went, a VM was added or removed) remove items.
	systray.ResetMenu()
	h.shape, h.items, h.actions = items, nil, nil
	h.built++
	h.add(items, nil)
}

// add adds items under parent (nil: the menu itself), in the order walk
// visits them.
func (h *systrayHost) add(items []menu.Item, parent *systray.MenuItem) {
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
		index, built := len(h.items), h.built
		h.items = append(h.items, item)
		h.actions = append(h.actions, it.Action)
		// systray drops a click that finds no goroutine waiting on the
		// item's channel, so the goroutine runs before the next item shows.
		waiting := make(chan struct{})
		go func() {
			close(waiting)
			for range item.ClickedCh {
				h.clicked(built, index)
			}
		}()
		<-waiting
		h.add(it.Children, item)
	}
}

// clicked passes a click on the item at index of menu built on with the
// item's action now.
func (h *systrayHost) clicked(built, index int) {
	h.mu.Lock()
	if built != h.built {
		h.mu.Unlock()
		return
	}
	action, click := h.actions[index], h.click
	h.mu.Unlock()
	if action.Do != menu.DoNothing {
		click(action)
	}
}

// walk visits every item that is not a separator, each before its
// children.
func walk(items []menu.Item, visit func(menu.Item)) {
	for _, it := range items {
		if !it.Separator {
			visit(it)
			walk(it.Children, visit)
		}
	}
}

// sameItems reports whether a and b have the same keys, separators and
// submenus in the same places.
func sameItems(a, b []menu.Item) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Separator != b[i].Separator || (a[i].Children == nil) != (b[i].Children == nil) ||
			!sameItems(a[i].Children, b[i].Children) {
			return false
		}
	}
	return true
}

func newHost() osHost { return &systrayHost{} }

// serve has nothing to do: systray shows the menu.
func (*systrayHost) serve() error { return nil }
