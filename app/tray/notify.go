package tray

import (
	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/app/menu"
)

// watchFor decides what the tray announces: a start that fails, with its
// reason, and the App settling after a change the tray asked for.
type watchFor struct {
	// generation is the App's generation after the tray's last change, 0
	// when the tray waits for nothing.
	generation int64
}

// expect announces the App's settling at generation or later.
func (t *Tray) expect(generation int64) {
	t.mu.Lock()
	t.watch.generation = generation
	t.mu.Unlock()
}

// note is a notification's title and body.
type note struct{ title, body string }

// check returns the notifications the step from prev to s calls for.
func (w *watchFor) check(prev, s menu.State) []note {
	if !s.DaemonUp {
		return nil
	}
	var notes []note
	phase, detail := menu.AppPhase(s.App, "")
	if before, _ := menu.AppPhase(prev.App, ""); phase == menu.Failed && before != menu.Failed && prev.DaemonUp {
		notes = append(notes, note{"Paddock failed", detail})
		w.generation = 0
	}
	if w.generation > 0 && s.App != nil {
		if settled, _ := wire.AppSettledTrue.Met(s.App.Status.Conditions, w.generation); settled {
			w.generation = 0
			switch phase {
			case menu.Running:
				notes = append(notes, note{"Paddock is running", menu.Summary(s.App)})
			case menu.Stopped:
				notes = append(notes, note{"Paddock stopped", "The VM and its container engine are stopped."})
			default:
				notes = append(notes, note{"Paddock settled", "Your changes are in effect."})
			}
		}
	}
	return notes
}
