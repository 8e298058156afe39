package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/labels"

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

// MaxPendingBytes bounds the live events queued for one watcher, in bytes
// of their objects: a watcher that falls further behind is ended with
// ErrWatchTooSlow and resumes from the last revision it received, as any
// watcher may. Writers never wait for a watcher. The listing or replay a
// watch starts with is not queued: it is read as the watcher asks for it,
// while the live events that come meanwhile wait in this bound.
const MaxPendingBytes = 32 << 20

// eventOverhead is what one queued event costs besides its object.
const eventOverhead = 128

// ErrWatchTooSlow ends a watch whose reader fell too far behind: more
// than MaxPendingBytes of new events waited for it.
var ErrWatchTooSlow = fmt.Errorf("watch ended: more than %d MiB of new events waited for the reader; resume from the last revision received", MaxPendingBytes>>20)

// ErrReplayTrimmed ends a watch whose replay of the event log was
// overtaken by the log's trimming: the events it was to replay next are
// gone, and a resume would answer Gone.
var ErrReplayTrimmed = errors.New("watch ended: the events it was replaying left the event log, which keeps a bounded number; list again and watch from the list's resourceVersion")

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
	// Superseded marks an object a backlog leaves out, Key alone set: it
	// changed after the backlog's revision, and its state then is no
	// longer stored. The watcher sends its first live event in its place,
	// a MODIFIED as ADDED, and drops a DELETED of it, which the watcher's
	// client never saw.
	Superseded bool
}

func (ev Event) size() int { return len(ev.Object) + eventOverhead }

// Backlog yields the events a watch starts with (a listing of current
// objects, or a replay of the event log), a batch at a time, in increasing
// revision; an empty batch ends it. It runs on the watcher's goroutine,
// outside the store's locks.
type Backlog func(ctx context.Context) ([]Event, error)

// Watcher delivers the events of one watch in increasing revision: its
// backlog, a BOOKMARK at the revision the backlog is current at, then live
// events. Next is for one goroutine at a time.
type Watcher struct {
	match Matcher
	hub   *Hub
	start int64 // the backlog's revision; live events at or before it are in the backlog

	backlog Backlog // nil once drained
	batch   []Event // the backlog's current batch
	// superseded holds the keys the backlog left out whose first live
	// event stands in for them.
	superseded map[resource.Key]struct{}

	mu           sync.Mutex
	pending      []Event
	pendingBytes int
	err          error
	ready        chan struct{} // holds a token while pending or err is set
}

// Next returns the next event, waiting for one. It fails with the reason
// the watch ended, or ctx's error.
func (w *Watcher) Next(ctx context.Context) (Event, error) {
	for {
		if err := w.ended(); err != nil && !errors.Is(err, ErrWatchTooSlow) {
			return Event{}, err
		}
		if len(w.batch) > 0 {
			ev := w.batch[0]
			w.batch[0] = Event{}
			w.batch = w.batch[1:]
			if ev.Superseded {
				if w.superseded == nil {
					w.superseded = map[resource.Key]struct{}{}
				}
				w.superseded[ev.Key] = struct{}{}
				continue
			}
			if ev.Type == Bookmark || w.match(ev.Key, labels.Set(ev.Labels)) {
				return ev, nil
			}
			continue
		}
		if w.backlog != nil {
			batch, err := w.backlog(ctx)
			if err != nil {
				w.Stop()
				return Event{}, err
			}
			if len(batch) == 0 {
				w.backlog = nil
				batch = []Event{{Type: Bookmark, Revision: w.start}}
			}
			w.batch = batch
			continue
		}
		w.mu.Lock()
		if len(w.pending) > 0 {
			ev := w.pending[0]
			w.pending[0] = Event{}
			w.pending = w.pending[1:]
			w.pendingBytes -= ev.size()
			w.mu.Unlock()
			if ev, ok := w.standIn(ev); ok {
				return ev, nil
			}
			continue
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

// standIn returns the live event ev as the watcher sends it: the first
// event of an object the backlog left out stands in for it.
func (w *Watcher) standIn(ev Event) (Event, bool) {
	if _, ok := w.superseded[ev.Key]; !ok {
		return ev, true
	}
	delete(w.superseded, ev.Key)
	switch ev.Type {
	case Modified:
		ev.Type = Added
	case Deleted:
		return Event{}, false
	}
	return ev, true
}

func (w *Watcher) ended() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Stop ends the watch; Next then fails with context.Canceled.
func (w *Watcher) Stop() {
	w.hub.remove(w)
	w.end(context.Canceled)
}

// push queues a live event if the watch selects it. It reports false once
// the watch has ended, so the hub can drop it.
func (w *Watcher) push(ev Event) bool {
	if ev.Revision <= w.start || !w.match(ev.Key, labels.Set(ev.Labels)) {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return false
	}
	defer w.signal()
	if w.pendingBytes+ev.size() > MaxPendingBytes {
		w.pending, w.pendingBytes = nil, 0
		w.err = ErrWatchTooSlow
		return false
	}
	w.pending = append(w.pending, ev)
	w.pendingBytes += ev.size()
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

// Hub fans committed events out to the live watchers. A store
// implementation owns one.
type Hub struct {
	mu       sync.Mutex
	watchers map[*Watcher]struct{}
}

// NewHub returns a hub without watchers.
func NewHub() *Hub { return &Hub{watchers: map[*Watcher]struct{}{}} }

// Watch starts a watcher of the events match selects: backlog's events,
// current at revision start, then every event published after start. The
// caller must make sure every event after start is published after this
// call or is in the backlog; published events at or before start are
// dropped.
func (h *Hub) Watch(match Matcher, start int64, backlog Backlog) *Watcher {
	w := &Watcher{match: match, hub: h, start: start, backlog: backlog, ready: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watchers[w] = struct{}{}
	return w
}

// Len returns the number of live watchers.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers)
}

func (h *Hub) remove(w *Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.watchers, w)
}

// Publish queues ev for every watcher that selects it, without waiting.
func (h *Hub) Publish(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		if !w.push(ev) {
			delete(h.watchers, w)
		}
	}
}

// CloseAll ends every watch with err.
func (h *Hub) CloseAll(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.watchers {
		w.end(err)
		delete(h.watchers, w)
	}
}
