package controller_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
)

func newStore(t *testing.T) *gormstore.DB {
	t.Helper()
	s, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// recorder counts reconciles per key and lets tests wait for them.
type recorder struct {
	mu     sync.Mutex
	counts map[resource.Key]int
	seen   chan resource.Key
}

func newRecorder() *recorder {
	return &recorder{counts: map[resource.Key]int{}, seen: make(chan resource.Key, 100)}
}

func (r *recorder) record(key resource.Key) int {
	r.mu.Lock()
	r.counts[key]++
	n := r.counts[key]
	r.mu.Unlock()
	r.seen <- key
	return n
}

func (r *recorder) waitFor(t *testing.T, key resource.Key) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case k := <-r.seen:
			if k == key {
				return
			}
		case <-deadline:
			t.Fatalf("%s was never reconciled", key)
		}
	}
}

func run(t *testing.T, c *controller.Controller) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func vm(name string) *resource.VM {
	return &resource.VM{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: name, Namespace: "default"},
		Spec:     resource.VMSpec{TemplateRef: "t"},
	}
}

func TestWatchAndOwnerEnqueue(t *testing.T) {
	s := newStore(t)
	rec := newRecorder()
	c := controller.New("test", s, func(ctx context.Context, key resource.Key) (controller.Result, error) {
		rec.record(key)
		return controller.Result{}, nil
	}, controller.Options{})
	c.Watches(resource.KindVM, controller.Self).Watches(resource.KindConfigMap, controller.ControllerOwner(resource.KindVM))
	run(t, c)

	ctx := context.Background()
	owner, err := s.Create(ctx, vm("parent"))
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, resource.KeyOf(owner))

	child := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: "child", Namespace: "default"},
	}
	controller.Own(child, owner)
	if _, err := s.Create(ctx, child); err != nil {
		t.Fatal(err)
	}
	// Only the child changed; the owner must be reconciled for it.
	rec.waitFor(t, resource.KeyOf(owner))
}

func TestRequeueAfterAndRetryOnError(t *testing.T) {
	s := newStore(t)
	rec := newRecorder()
	c := controller.New("test", s, func(ctx context.Context, key resource.Key) (controller.Result, error) {
		switch rec.record(key) {
		case 1:
			return controller.Result{}, errors.New("transient failure")
		case 2:
			return controller.Result{RequeueAfter: 20 * time.Millisecond}, nil
		}
		return controller.Result{}, nil
	}, controller.Options{MinBackoff: 10 * time.Millisecond})
	c.Watches(resource.KindVM, controller.Self)
	run(t, c)

	obj, err := s.Create(context.Background(), vm("flaky"))
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	rec.waitFor(t, key) // fails
	rec.waitFor(t, key) // retried after the error; asks to requeue
	rec.waitFor(t, key) // requeued although nothing changed
}

func TestUpdateStatusRetriesOnConflict(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	obj, err := s.Create(ctx, vm("busy"))
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	calls := 0
	out, err := controller.UpdateStatus(ctx, s, key, func(v *resource.VM) (bool, error) {
		calls++
		if calls == 1 {
			// Another writer changes the object between our read and write.
			if _, err := s.Patch(ctx, key, []byte(`{"metadata":{"labels":{"x":"y"}}}`)); err != nil {
				return false, err
			}
		}
		v.Status.RestartCount++
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || out.Status.RestartCount != 1 || out.Metadata.Labels["x"] != "y" {
		t.Fatalf("calls=%d status=%+v labels=%v: want one retry that kept both writes", calls, out.Status, out.Metadata.Labels)
	}
}

func TestOwnedChildLifecycle(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	owner, err := s.Create(ctx, vm("rd"))
	if err != nil {
		t.Fatal(err)
	}
	child := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: resource.TemplateName("rd"), Namespace: "default", Finalizers: []string{resource.FinalizerCleanup}},
	}
	controller.Own(child, owner)
	created, err := s.Create(ctx, child)
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(created)

	if err := controller.DeleteOwned(ctx, s, key, owner); err != nil {
		t.Fatalf("owner delete refused: %v", err)
	}
	// Terminating with both finalizers: the parent releases its own, the
	// child's controller its cleanup; then the child is gone.
	if err := controller.ReleaseOwned(ctx, s, key, resource.KindVM); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, key); err != nil {
		t.Fatalf("child gone before its cleanup finalizer was removed: %v", err)
	}
	if err := controller.RemoveFinalizer(ctx, s, key, resource.FinalizerCleanup); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, key); !resource.IsNotFound(err) {
		t.Fatalf("child still there after its last finalizer: %v", err)
	}
	if err := controller.ReleaseOwned(ctx, s, key, resource.KindVM); err != nil {
		t.Fatalf("releasing a gone child must be a no-op: %v", err)
	}
}

// A kind watched for two reasons is watched once, the store's watchers
// gauge says (a start lists its objects once), and each mapper's keys are
// reconciled.
func TestKindWatchedTwiceIsWatchedOnce(t *testing.T) {
	s := newStore(t)
	m := metrics.New()
	s.Instrument(m)
	rec := newRecorder()
	c := controller.New("test", s, func(ctx context.Context, key resource.Key) (controller.Result, error) {
		rec.record(key)
		return controller.Result{}, nil
	}, controller.Options{})
	shadow := func(ev store.Event) ([]resource.Key, error) {
		return []resource.Key{{Kind: "ConfigMap", Namespace: ev.Key.Namespace, Name: ev.Key.Name + "-shadow"}}, nil
	}
	c.Watches(resource.KindVM, controller.Self).Watches(resource.KindVM, shadow)
	run(t, c)

	created, err := s.Create(context.Background(), vm("one"))
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, resource.KeyOf(created))
	rec.waitFor(t, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: "one-shadow"})
	if n := watchers(t, m); n != 1 {
		t.Fatalf("%v watches open on the store, want 1", n)
	}
}

// watchers reads the paddock_store_watchers gauge.
func watchers(t *testing.T, m *metrics.Metrics) float64 {
	t.Helper()
	families, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "paddock_store_watchers" {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("no paddock_store_watchers gauge")
	return 0
}
