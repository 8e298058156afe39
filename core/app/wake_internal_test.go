package app

import (
	"context"
	"strconv"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// laggingStore is a fake fault over the real store: its watches cannot
// serve the revision asked for, and its first read returns an App older
// than the one the caller already saw, as PostgreSQL's store can for a
// moment after answering a write under load (its index behind the write).
type laggingStore struct {
	store.Store
	stale *resource.App // returned by the first Get, then nil
}

func (s *laggingStore) Watch(context.Context, store.WatchOptions) (*store.Watcher, error) {
	return nil, resource.Errorf(resource.ReasonGone, "the watch is behind")
}

func (s *laggingStore) Get(ctx context.Context, key resource.Key) (resource.Object, error) {
	if a := s.stale; a != nil {
		s.stale = nil
		return a, nil
	}
	return s.Store.Get(ctx, key)
}

// A wake that reads the App of before its own unsuspending write, still
// suspended, waits on for the App it woke instead of failing as if the App
// had been suspended again.
func TestWaitAwakeSkipsAnAppOlderThanTheOneSeen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dialector, err := gormstore.Dialector(storetest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: dialector})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := resource.Key{Kind: resource.KindApp.Name, Name: resource.AppName}
	obj, err := st.Create(ctx, &resource.App{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "App"},
		Metadata: resource.ObjectMeta{Name: resource.AppName, Annotations: map[string]string{resource.AnnotationSuspended: "1"}},
		Spec:     resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"}})
	if err != nil {
		t.Fatal(err)
	}
	suspended := obj.(*resource.App)
	if !suspended.Suspended() {
		t.Fatalf("the App made suspended is not: %+v", suspended.Metadata)
	}
	obj, err = st.Patch(ctx, key, unsuspend)
	if err != nil {
		t.Fatal(err)
	}
	woken := obj.(*resource.App)
	// Its engine answers after the wake.
	if _, err := st.PatchStatus(ctx, key, []byte(`{"status":{"conditions":[{"type":"`+resource.AppContainerEngineReady+
		`","status":"True","reason":"Connected","message":"","lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":`+
		strconv.FormatInt(woken.Metadata.Generation, 10)+`}]}}`)); err != nil {
		t.Fatal(err)
	}
	if err := waitAwake(ctx, &laggingStore{Store: st, stale: suspended}, woken); err != nil {
		t.Fatalf("waitAwake after a read older than the wake: %v", err)
	}
}
