package controller_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
)

// logBuffer collects a controller's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestPanicIsRecoveredLoggedCountedAndRetried(t *testing.T) {
	s := newStore(t)
	rec := newRecorder()
	var logs logBuffer
	c := controller.New("test", s, func(ctx context.Context, key resource.Key) (controller.Result, error) {
		if rec.record(key) == 1 {
			var v *resource.VM
			_ = v.Spec // a nil dereference, as a bug in a reconcile would make
		}
		return controller.Result{}, nil
	}, controller.Options{MinBackoff: time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c.Watches(resource.KindVM, controller.Self)
	run(t, c)

	obj, err := s.Create(context.Background(), vm("boom"))
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	rec.waitFor(t, key) // panics
	rec.waitFor(t, key) // retried, although nothing changed
	if n := c.Panics(); n != 1 {
		t.Errorf("Panics() = %d, want 1", n)
	}
	if l := logs.String(); !strings.Contains(l, "panic recovered") || !strings.Contains(l, key.String()) || !strings.Contains(l, "nil pointer") {
		t.Errorf("the log does not name the panic and the key %s:\n%s", key, l)
	}
}

func TestTerminalErrorIsRecordedInStatusNotRetried(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var failures, skips atomic.Int32
	skipped := make(chan struct{}, 10)
	reconcile := func(ctx context.Context, key resource.Key) (controller.Result, error) {
		obj, err := s.Get(ctx, key)
		if err != nil {
			return controller.Result{}, err
		}
		v := obj.(*resource.VM)
		if controller.Failed(v, resource.VMRunning, resource.ReasonStartFailed) {
			skips.Add(1)
			skipped <- struct{}{}
			return controller.Result{}, nil
		}
		failures.Add(1)
		return controller.Result{}, controller.Terminal(v, resource.VMRunning, resource.ReasonStartFailed, errors.New("the kernel would not boot"))
	}
	opts := controller.Options{MinBackoff: time.Millisecond}
	first := controller.New("test", s, reconcile, opts).Watches(resource.KindVM, controller.Self)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { first.Run(runCtx); close(done) }()

	obj, err := s.Create(ctx, vm("doomed"))
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	waitSkip := func() {
		t.Helper()
		select {
		case <-skipped:
		case <-time.After(10 * time.Second):
			t.Fatal("the recorded failure was never read back")
		}
	}
	// The record is a status write, which wakes the reconcile, which reads
	// the failure back and leaves it.
	waitSkip()
	got, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(got.(*resource.VM).Status.Conditions, resource.VMRunning)
	if cond == nil || cond.Status != "False" || cond.Reason != resource.ReasonStartFailed ||
		cond.Message != "the kernel would not boot" || cond.ObservedGeneration != 1 {
		t.Fatalf("Running condition = %+v, want False/StartFailed with the error, for generation 1", cond)
	}

	// A daemon restart keeps the record: a new controller does not try again.
	stop()
	<-done
	second := controller.New("test", s, reconcile, opts).Watches(resource.KindVM, controller.Self)
	run(t, second)
	waitSkip()
	if n := failures.Load(); n != 1 {
		t.Fatalf("the failure was retried: %d failures, want 1", n)
	}

	// A spec change is a new attempt, and its failure a new record.
	if _, err := s.Patch(ctx, key, []byte(`{"spec":{"running":true}}`)); err != nil {
		t.Fatal(err)
	}
	waitSkip()
	if n := failures.Load(); n != 2 {
		t.Fatalf("%d failures after the spec changed, want 2", n)
	}
	got, err = s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(got.(*resource.VM).Status.Conditions, resource.VMRunning); cond.ObservedGeneration != 2 {
		t.Fatalf("the new failure is recorded for generation %d, want 2", cond.ObservedGeneration)
	}
}

func TestGoroutinesAreJoinedAndRecovered(t *testing.T) {
	s := newStore(t)
	rec := newRecorder()
	c := controller.New("test", s, func(ctx context.Context, key resource.Key) (controller.Result, error) {
		rec.record(key)
		return controller.Result{}, nil
	}, controller.Options{MinBackoff: time.Millisecond})
	key := resource.Key{Kind: resource.KindVM.Name, Namespace: "default", Name: "helper"}
	if c.Go(key, func(context.Context) {}) {
		t.Fatal("Go ran a goroutine before the controller runs")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for !c.Go(key, func(context.Context) { panic("helper bug") }) {
		if time.Now().After(deadline) {
			t.Fatal("the controller never started running")
		}
		time.Sleep(time.Millisecond)
	}
	rec.waitFor(t, key) // the helper's key is reconciled after its panic
	if n := c.Panics(); n != 1 {
		t.Errorf("Panics() = %d, want 1", n)
	}

	var finished atomic.Bool
	release := make(chan struct{})
	if !c.Go(key, func(ctx context.Context) {
		<-ctx.Done()
		<-release
		finished.Store(true)
	}) {
		t.Fatal("Go refused while the controller runs")
	}
	cancel()
	select {
	case <-done:
		t.Fatal("Run returned while a goroutine it started still ran")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-done
	if !finished.Load() {
		t.Fatal("Run returned before its goroutine finished")
	}
	if c.Go(key, func(context.Context) {}) {
		t.Fatal("Go ran a goroutine after the controller stopped")
	}
}
