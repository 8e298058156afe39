package tray

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// watchFor decides what the tray announces: the end of each change the
// user made from the tray (the App settling, or failing with its reason,
// however often the same failure repeats), and the App failing on its own.
type watchFor struct {
	// generation is the App's generation after the tray's last change, 0
	// when the tray waits for nothing.
	generation int64
	// expected is the highest generation expect was given: the answer to
	// an earlier change that comes after a later one's waits for nothing.
	expected int64
	// announced is the generation the App's Settled condition was
	// observed for when its failure was last announced.
	announced int64
	// appVMActions counts the actions on the App's VM in flight (Restart,
	// and the App's VM's items under Machines): each announces its own
	// end, so the App's failure meanwhile is not announced twice.
	appVMActions int
}

// expect announces the App's settling at generation or later, which may
// have come already, before the answer to the change that made it.
func (t *Tray) expect(generation int64) {
	t.mu.Lock()
	if generation <= t.watch.expected {
		t.mu.Unlock()
		return
	}
	t.watch.expected, t.watch.generation = generation, generation
	notes := t.watch.check(t.state, t.state)
	t.mu.Unlock()
	for _, n := range notes {
		t.desk.Notify(n.title, n.body)
	}
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
	if before, _ := menu.AppPhase(prev.App, ""); phase == menu.Failed && before != menu.Failed && prev.DaemonUp && w.appVMActions == 0 {
		notes = append(notes, note{"Paddock failed", detail})
		w.generation = 0
		if c := meta.FindStatusCondition(s.App.Status.Conditions, resource.AppSettled); c != nil {
			w.announced = c.ObservedGeneration
		}
	}
	if s.App == nil {
		w.expected = 0 // an App made anew counts its generations from 1
		return notes
	}
	if w.generation == 0 {
		return notes
	}
	// The App's failure to settle for the change is announced even when it
	// was failing already, with the same reason.
	if current, _ := wire.AppSettled.Met(s.App.Status.Conditions, w.generation); !current {
		return notes
	}
	settled := meta.FindStatusCondition(s.App.Status.Conditions, resource.AppSettled)
	switch {
	case settled.Status == metav1.ConditionTrue:
		w.generation = 0
		switch phase {
		case menu.Running:
			notes = append(notes, note{"Paddock is running", menu.Summary(s.App)})
		case menu.Stopped:
			notes = append(notes, note{"Paddock stopped", "The VM and its container engine are stopped."})
		default:
			notes = append(notes, note{"Paddock settled", "Your changes are in effect."})
		}
	case slices.Contains(resource.AppFailures, settled.Reason):
		if settled.ObservedGeneration > w.announced {
			if phase != menu.Failed {
				detail = settled.Message
			}
			notes = append(notes, note{"Paddock failed", detail})
			w.announced = settled.ObservedGeneration
		}
		w.generation = 0
	}
	return notes
}
