package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// Event is one change a watch reports. Object is nil for a BOOKMARK, which
// only says the watch has caught up to Revision.
type Event struct {
	Type     string
	Revision string
	Object   resource.Object
	// Listing marks the events of a fresh list; see Client.Follow.
	Listing bool
}

// Watch is an open stream of changes.
type Watch struct {
	body    io.ReadCloser
	scanner *bufio.Scanner
	kind    *resource.Kind
}

// Watch follows changes of kind k in namespace ns (all when empty) after
// revision from; with from empty it starts with an ADDED event for every
// current object, then a BOOKMARK. Close it when done.
func (c *Client) Watch(ctx context.Context, k *resource.Kind, ns string, opts ListOptions, from string) (*Watch, error) {
	q := opts.query()
	q.Set("watch", "true")
	if from != "" {
		q.Set("resourceVersion", from)
	}
	resp, err := c.send(ctx, "GET", wire.CollectionPath(k, ns)+"?"+q.Encode(), "", nil, wire.EventStreamType)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, problemOf(resp)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &Watch{body: resp.Body, scanner: sc, kind: k}, nil
}

// Next returns the next event. It fails with io.EOF when the daemon ends
// the stream; resume with a new Watch from the last revision seen.
func (w *Watch) Next() (Event, error) {
	var ev Event
	var data string
	for w.scanner.Scan() {
		line := w.scanner.Text()
		switch {
		case line == "":
			if data == "" {
				continue
			}
			var msg wire.WatchEvent
			if err := json.Unmarshal([]byte(data), &msg); err != nil {
				return Event{}, fmt.Errorf("decode watch event: %w", err)
			}
			if msg.Type == wire.WatchError {
				// The daemon ended the stream; its object says why.
				return Event{}, io.EOF
			}
			ev.Type = msg.Type
			if msg.Type != "BOOKMARK" {
				ev.Object = resource.NewObject(w.kind)
				if err := json.Unmarshal(msg.Object, ev.Object); err != nil {
					return Event{}, fmt.Errorf("decode watch event: %w", err)
				}
			}
			return ev, nil
		case strings.HasPrefix(line, "id:"):
			ev.Revision = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		}
	}
	if err := w.scanner.Err(); err != nil {
		return Event{}, fmt.Errorf("%w: %v", errStreamBroken, err)
	}
	return Event{}, io.EOF
}

// Close ends the watch.
func (w *Watch) Close() error { return w.body.Close() }

// errStreamBroken marks a watch stream cut off mid-way: the daemon died or
// the connection broke.
var errStreamBroken = errors.New("the watch stream broke off")

// ReconnectWithin bounds how long Follow keeps trying to reach a daemon
// that went away while it was followed (a restart, a crash) before it
// returns ErrUnreachable.
const ReconnectWithin = 30 * time.Second

// Follow watches kind k in namespace ns and calls fn with each event until
// fn says stop or fails, or ctx ends (then Follow returns ctx's error). When
// the stream ends or breaks off, Follow resumes after the last revision it
// saw, waiting up to ReconnectWithin for a daemon that went away to come
// back; when that revision is Gone, it starts over with a fresh list. The
// events of a fresh list (an ADDED per object, then the BOOKMARK that ends
// it) have Listing set. A daemon that cannot be reached at the start fails
// Follow at once.
func (c *Client) Follow(ctx context.Context, k *resource.Kind, ns string, opts ListOptions, fn func(Event) (stop bool, err error)) error {
	from := ""
	var lost time.Time // when the daemon was first unreachable after a stream
	streamed := false
	for {
		listing := from == ""
		w, err := c.Watch(ctx, k, ns, opts, from)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			switch {
			case resource.ReasonOf(err) == resource.ReasonGone:
				from = ""
				continue
			case streamed && errors.Is(err, ErrUnreachable):
				if lost.IsZero() {
					lost = time.Now()
				}
				if time.Since(lost) < ReconnectWithin {
					if err := sleep(ctx, reconnectDelay(time.Since(lost))); err != nil {
						return err
					}
					continue
				}
			}
			return err
		}
		streamed, lost = true, time.Time{}
		stop, err := c.drain(ctx, w, listing, &from, fn)
		w.Close()
		if stop || err != nil {
			return err
		}
	}
}

// drain passes w's events to fn until the stream ends, keeping in from the
// revision to resume after: event ids only increase over a stream, so a
// resume from any of them, mid-list too, misses nothing.
func (c *Client) drain(ctx context.Context, w *Watch, listing bool, from *string, fn func(Event) (bool, error)) (bool, error) {
	for {
		ev, err := w.Next()
		if err != nil {
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, errStreamBroken) {
				return false, nil
			}
			return true, err
		}
		ev.Listing = listing
		if ev.Type == "BOOKMARK" {
			listing = false
		}
		*from = ev.Revision
		if stop, err := fn(ev); stop || err != nil {
			return true, err
		}
	}
}

// reconnectDelay is the pause before the next attempt to reach a daemon
// that has been away for so long: short at first, for a quick restart.
func reconnectDelay(away time.Duration) time.Duration {
	return min(50*time.Millisecond+away/4, 2*time.Second)
}

// sleep waits d, or returns ctx's error when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
