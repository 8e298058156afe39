package store

import (
	"context"
	"errors"
	"sync"

	"paddock.dev/paddock/core/resource"
)

// EventType says what happened to an object.
type EventType string

// The event types of a watch. A BOOKMARK carries no object change: it tells
// the watcher the revision it has caught up to.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
)

// maxPending bounds the events queued for one watcher; a watcher that falls
// further behind is ended with ErrWatchTooSlow and resumes from its last
// revision, as any watcher may.
const maxPending = 10000

// ErrWatchTooSlow ends a watch whose reader fell too far behind.
var ErrWatchTooSlow = errors.New("watch ended: the reader fell too far behind; resume from the last revision received")

// ErrWatchClosed ends a watch when the store closes.
var ErrWatchClosed = errors.New("watch ended: the store is closing")

// Event is one change, as a watch delivers it.
type Event struct {
	Type     EventType
	Revision int64
	Key      resource.Key
	Labels   map[string]string
	// Object is the object's JSON after the change (for DELETED, its last
	// state); nil for a BOOKMARK.
	Object []byte
}

// Watcher delivers the events of one watch in revision order.
type Watcher struct {
	match func(resource.Key, map[string]string) bool
	hub   *hub

	mu      sync.Mutex
	pending []Event
	err     error
	ready   chan struct{} // holds a token while pending or err is set
}

// Next returns the next event, waiting for one. It fails with the reason
// the watch ended, or ctx's error.
func (w *Watcher) Next(ctx context.Context) (Event, error) {
	for {
		w.mu.Lock()
		if len(w.pending) > 0 {
			ev := w.pending[0]
			w.pending[0] = Event{}
			w.pending = w.pending[1:]
			w.mu.Unlock()
			return ev, nil
		}
		err := w.err
		w.mu.Unlock()
		if err != nil {
			return Event{}, err
		}
		select {
		case <-w.ready:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Stop ends the watch; Next then fails with context.Canceled.
func (w *Watcher) Stop() {
	w.hub.remove(w)
	w.end(context.Canceled)
}

// push queues ev if the watch selects it. It reports false once the watch
// has ended, so the hub can drop it.
func (w *Watcher) push(ev Event) bool {
	if ev.Type != Bookmark && !w.match(ev.Key, ev.Labels) {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return false
	}
	defer w.signal()
	if len(w.pending) >= maxPending {
		w.pending = nil
		w.err = ErrWatchTooSlow
		return false
	}
	w.pending = append(w.pending, ev)
	return true
}

func (w *Watcher) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	w.signal()
}

func (w *Watcher) signal() {
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// hub fans committed events out to the live watchers.
type hub struct {
	mu       sync.Mutex
	watchers map[*Watcher]struct{}
}

func newHub() *hub { return &hub{watchers: map[*Watcher]struct{}{}} }

func (h *hub) newWatcher(match func(resource.Key, map[string]string) bool) *Watcher {
	return &Watcher{match: match, hub: h, ready: make(chan struct{}, 1)}
}

func (h *hub) add(w *Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watchers[w] = struct{}{}
}

func (h *hub) remove(w *Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.watchers, w)
}

func (h *hub) publish(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		if !w.push(ev) {
			delete(h.watchers, w)
		}
	}
}

// closeAll ends every watch with err.
func (h *hub) closeAll(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		w.end(err)
		delete(h.watchers, w)
	}
}
