package gormstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

var cmWatch = store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}}

// collect reads w until its BOOKMARK and returns the events before it.
func collect(t *testing.T, w *store.Watcher) []store.Event {
	t.Helper()
	var out []store.Event
	for {
		ev := nextEvent(t, w)
		if ev.Type == store.Bookmark {
			return out
		}
		out = append(out, ev)
	}
}

// A watch delivers any number of objects, and a replay any number of
// events: both once stopped at 10,000 with an empty stream.
func TestWatchDeliversMoreThanTenThousand(t *testing.T) {
	s := newStore(t)
	const n = 10_050
	for i := 0; i < n; i++ {
		mustCreate(t, s, configMap("default", fmt.Sprintf("cm-%05d", i), nil))
	}
	w, err := s.Watch(context.Background(), cmWatch)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got := len(collect(t, w)); got != n {
		t.Fatalf("the listing delivered %d objects, want %d", got, n)
	}

	// Resume from the oldest revision the log keeps.
	opts := cmWatch
	opts.ResourceVersion = s.Revision() - gormstore.DefaultEventRetention
	r, err := s.Watch(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	if got := len(collect(t, r)); got != gormstore.DefaultEventRetention {
		t.Fatalf("the replay delivered %d events, want %d", got, gormstore.DefaultEventRetention)
	}
}

// Event ids only increase over a stream, the listing included, and a
// resume from any id the stream sent ends at the same objects.
func TestWatchIdsIncreaseAndResumeIsExact(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	// Names in the reverse order of their writes, and later edits, so
	// that name order and revision order differ.
	for _, name := range []string{"e", "d", "c", "b", "a"} {
		mustCreate(t, s, configMap("default", name, nil))
	}
	for _, name := range []string{"c", "e"} {
		if _, err := s.Patch(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: name}, []byte(`{"data":{"k":"v"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := s.Watch(ctx, cmWatch)
	if err != nil {
		t.Fatal(err)
	}
	listing := collect(t, w)
	w.Stop()
	for i := 1; i < len(listing); i++ {
		if listing[i].Revision <= listing[i-1].Revision {
			t.Fatalf("ids go backwards: %d after %d", listing[i].Revision, listing[i-1].Revision)
		}
	}
	all := names(listing)
	for i := range listing {
		// A client that received listing[:i+1], then reconnected with
		// the last id.
		opts := cmWatch
		opts.ResourceVersion = listing[i].Revision
		r, err := s.Watch(ctx, opts)
		if err != nil {
			t.Fatalf("resume from %d: %v", listing[i].Revision, err)
		}
		seen := names(append(append([]store.Event(nil), listing[:i+1]...), collect(t, r)...))
		r.Stop()
		if seen != all {
			t.Fatalf("resumed from id %d: saw %s, want %s", listing[i].Revision, seen, all)
		}
	}
}

func names(evs []store.Event) string {
	set := map[string]bool{}
	for _, ev := range evs {
		set[ev.Key.Name] = ev.Type != store.Deleted
	}
	var out []string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		if set[n] {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// A watcher that does not read costs at most store.MaxPendingBytes: once
// behind by more, it is ended with ErrWatchTooSlow, and writers never wait.
func TestStalledWatcherIsBoundedInBytes(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	cm := mustCreate(t, s, configMap("default", "big", nil))
	w, err := s.Watch(ctx, cmWatch)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	big := strings.Repeat("x", 900<<10)
	writes := store.MaxPendingBytes/len(big) + 2
	start := time.Now()
	for i := 0; i < writes; i++ {
		cm.Data = map[string]string{"k": big[i:]}
		out, err := s.Update(ctx, cm)
		if err != nil {
			t.Fatal(err)
		}
		cm = out.(*resource.ConfigMap)
	}
	t.Logf("%d writes of 900 KiB beside a stalled watcher in %v", writes, time.Since(start))
	got := 0
	for {
		_, err := w.Next(ctx)
		if errors.Is(err, store.ErrWatchTooSlow) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got++
	}
	// The listing's one object and its bookmark were delivered; the live
	// events were dropped at the bound.
	if got != 2 {
		t.Fatalf("the stalled watcher delivered %d events before it ended, want 2", got)
	}
}

// Admission runs outside the write lock: a slow admission (Lima's
// validator, say) holds up no other write.
func TestAdmissionDoesNotHoldTheWriteLock(t *testing.T) {
	ctx := context.Background()
	admitting, release := make(chan struct{}), make(chan struct{})
	cfg := config(t, storetest.Database(t))
	cfg.Admit = func(ctx context.Context, r store.Reader, obj, old resource.Object) error {
		if _, ok := obj.(*resource.VM); ok {
			close(admitting)
			<-release
		}
		return nil
	}
	s, err := gormstore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	created := make(chan error, 1)
	go func() {
		_, err := s.Create(ctx, vm("default", "slow"))
		created <- err
	}()
	<-admitting
	other := make(chan error, 1)
	go func() {
		_, err := s.Create(ctx, configMap("default", "meanwhile", nil))
		other <- err
	}()
	select {
	case err := <-other:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write waited for another write's admission")
	}
	close(release)
	if err := <-created; err != nil {
		t.Fatal(err)
	}
}

// The listing a watch starts with shows every object as it was when the
// watch began, even one written while the listing is read: its JSON comes
// from the event log then. The write follows as a live event.
func TestWatchListingIsASnapshot(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustCreate(t, s, configMap("default", "a", map[string]string{"v": "old"}))
	mustCreate(t, s, configMap("default", "b", nil))
	w, err := s.Watch(ctx, cmWatch)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	key := resource.Key{Kind: "ConfigMap", Namespace: "default", Name: "a"}
	if _, err := s.Patch(ctx, key, []byte(`{"data":{"v":"new"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: "b"}, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	listed := collect(t, w)
	if len(listed) != 2 || listed[0].Key.Name != "a" || listed[1].Key.Name != "b" {
		t.Fatalf("the listing delivered %v, want a and b as they were", listed)
	}
	if !strings.Contains(string(listed[0].Object), `"old"`) || listed[0].Revision != 1 {
		t.Fatalf("the listing delivered a at revision %d as %s, want its first state", listed[0].Revision, listed[0].Object)
	}
	for _, want := range []store.EventType{store.Modified, store.Deleted} {
		if ev := nextEvent(t, w); ev.Type != want {
			t.Fatalf("after the listing: %s %s, want %s", ev.Type, ev.Key.Name, want)
		}
	}
}

// A listing goes on while the objects it lists change, however far the
// event log was trimmed past the states it saw (it once ended as if its
// reader were too slow): an object whose listed state is gone is sent
// once, as ADDED, by its first change, and one deleted meanwhile is not
// sent at all. Ids only increase, and the watcher ends at the objects
// there are.
func TestWatchListingGoesOnWhileItsObjectsChange(t *testing.T) {
	cfg := config(t, storetest.Database(t))
	cfg.EventRetention = 10
	s, err := gormstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const n = 600
	for i := range n {
		mustCreate(t, s, configMap("default", fmt.Sprintf("cm-%03d", i), nil))
	}
	w, err := s.Watch(ctx, cmWatch)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	first := nextEvent(t, w)
	// Every object changes twice, the last ten are deleted, and enough
	// writes follow for the log to keep none of the listed states.
	for round := range 2 {
		for i := range n {
			key := resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("cm-%03d", i)}
			if _, err := s.Patch(ctx, key, fmt.Appendf(nil, `{"data":{"round":"%d"}}`, round)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := n - 10; i < n; i++ {
		if _, err := s.Delete(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("cm-%03d", i)}, store.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(t, s, configMap("default", "last", nil))

	state := map[string]string{first.Key.Name: string(first.Object)}
	last := first.Revision
	for {
		ev := nextEvent(t, w)
		if ev.Type != store.Bookmark {
			if ev.Revision <= last {
				t.Fatalf("id %d after %d: ids must only increase", ev.Revision, last)
			}
			last = ev.Revision
		}
		name := ev.Key.Name
		switch ev.Type {
		case store.Added:
			if _, ok := state[name]; ok {
				t.Fatalf("%s ADDED twice", name)
			}
			state[name] = string(ev.Object)
		case store.Modified:
			if _, ok := state[name]; !ok {
				t.Fatalf("%s MODIFIED before it was ADDED", name)
			}
			state[name] = string(ev.Object)
		case store.Deleted:
			if _, ok := state[name]; !ok {
				t.Fatalf("%s DELETED but never ADDED", name)
			}
			delete(state, name)
		}
		if name == "last" {
			break
		}
	}
	objs, _, err := s.List(ctx, cmWatch.ListOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(state) != len(objs) {
		t.Fatalf("the watcher holds %d objects, the store %d", len(state), len(objs))
	}
	for _, obj := range objs {
		cm := obj.(*resource.ConfigMap)
		if cm.Metadata.Name != "last" && !strings.Contains(state[cm.Metadata.Name], `"round":"1"`) {
			t.Fatalf("the watcher holds %s as %s, want its last state", cm.Metadata.Name, state[cm.Metadata.Name])
		}
	}
}
