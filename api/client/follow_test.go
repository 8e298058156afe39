package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// follower runs Follow in the background. It holds back the first event
// until released, so that a test can end the stream and write while no
// watch is open; the events come out on events.
type follower struct {
	events  chan client.Event
	holding chan struct{} // closed once the first event is held
	release chan struct{}
	done    chan error
}

func follow(ctx context.Context, cl *client.Client) *follower {
	f := &follower{events: make(chan client.Event, 100), holding: make(chan struct{}), release: make(chan struct{}), done: make(chan error, 1)}
	held := false
	go func() {
		f.done <- cl.Follow(ctx, resource.KindVM, "", client.ListOptions{}, func(ev client.Event) (bool, error) {
			if !held {
				held = true
				close(f.holding)
				<-f.release
			}
			f.events <- ev
			return false, nil
		})
	}()
	return f
}

// awaitHeld returns once the first event is held.
func (f *follower) awaitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-f.holding:
	case err := <-f.done:
		t.Fatalf("Follow ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
}

// next returns the next event that is not a bookmark.
func (f *follower) next(t *testing.T) client.Event {
	t.Helper()
	for {
		select {
		case ev := <-f.events:
			if ev.Type != "BOOKMARK" {
				return ev
			}
		case err := <-f.done:
			t.Fatalf("Follow ended: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
	}
}

// A stream the daemon ends is resumed after the last revision seen:
// changes made while no stream was open arrive once, in order, and are
// not a fresh list.
func TestFollowResumesWhereTheStreamEnded(t *testing.T) {
	d, cl := newDaemon(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mustCreate(t, cl, "a")
	f := follow(ctx, cl)
	f.awaitHeld(t) // a's ADDED
	d.restart()
	for i := range 3 {
		mustCreate(t, cl, fmt.Sprintf("b%d", i))
	}
	close(f.release)

	if ev := f.next(t); ev.Type != "ADDED" || ev.Object.GetMeta().Name != "a" || !ev.Listing {
		t.Fatalf("first event %s %v listing=%v, want the list's ADDED a", ev.Type, ev.Object.GetMeta().Name, ev.Listing)
	}
	for i := range 3 {
		ev := f.next(t)
		if ev.Type != "ADDED" || ev.Object.GetMeta().Name != fmt.Sprintf("b%d", i) || ev.Listing {
			t.Fatalf("event %d: %s %s listing=%v, want a resumed ADDED b%d", i, ev.Type, ev.Object.GetMeta().Name, ev.Listing, i)
		}
	}
	select {
	case ev := <-f.events:
		if ev.Type != "BOOKMARK" {
			t.Fatalf("an event came twice or from nowhere: %s %v", ev.Type, ev.Object)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// When the revision to resume from is too old to replay (Gone), Follow
// lists afresh: every object arrives as a list's ADDED.
func TestFollowListsAgainWhenTheRevisionIsGone(t *testing.T) {
	d, cl := newDaemon(t, 2) // the event log keeps 2 events, trimmed every 256 writes
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mustCreate(t, cl, "a")
	f := follow(ctx, cl)
	f.awaitHeld(t)
	d.restart()
	for i := range 5 {
		mustCreate(t, cl, fmt.Sprintf("b%d", i))
	}
	key := resource.Key{Kind: resource.KindVM.Name, Namespace: resource.DefaultNamespace, Name: "a"}
	for i := range 256 {
		if _, err := d.store.Patch(ctx, key, fmt.Appendf(nil, `{"metadata":{"labels":{"n":"%d"}}}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	close(f.release)

	if ev := f.next(t); ev.Object.GetMeta().Name != "a" {
		t.Fatalf("first event for %s", ev.Object.GetMeta().Name)
	}
	seen := map[string]bool{}
	for range 6 {
		ev := f.next(t)
		if ev.Type != "ADDED" || !ev.Listing {
			t.Fatalf("%s %s listing=%v: want a fresh list", ev.Type, ev.Object.GetMeta().Name, ev.Listing)
		}
		seen[ev.Object.GetMeta().Name] = true
	}
	if len(seen) != 6 {
		t.Fatalf("the fresh list held %v, want a and b0..b4", seen)
	}
}

// A daemon that goes away while followed (a restart) is waited for; the
// changes made while it was away arrive once it is back, resumed.
func TestFollowWaitsForADaemonThatComesBack(t *testing.T) {
	d, cl := newDaemon(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mustCreate(t, cl, "a")
	f := follow(ctx, cl)
	close(f.release)
	if ev := f.next(t); ev.Object.GetMeta().Name != "a" {
		t.Fatalf("first event for %s", ev.Object.GetMeta().Name)
	}
	time.Sleep(100 * time.Millisecond) // past the list's bookmark
	d.stop()
	if _, err := d.store.Create(ctx, newVM("b")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // Follow finds no daemon meanwhile
	d.serve()
	if ev := f.next(t); ev.Type != "ADDED" || ev.Object.GetMeta().Name != "b" || ev.Listing {
		t.Fatalf("%s %s listing=%v, want a resumed ADDED b", ev.Type, ev.Object.GetMeta().Name, ev.Listing)
	}
}
