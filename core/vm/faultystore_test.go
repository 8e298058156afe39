package vm_test

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// faultyStore is the real store with faults on demand: it fails one call
// that a test picks, which the real store cannot be made to do at a chosen
// moment, so that the controller's every store error path runs. The
// failure is a plain error, as a database that went away gives.
type faultyStore struct {
	store.Store
	mu     sync.Mutex
	faults []*storeFault
}

// storeFault fails the first call of op for which match holds, or, when
// meanwhile is set, runs meanwhile before that call and lets it go on.
type storeFault struct {
	op        string
	match     func(key resource.Key, obj resource.Object, patch []byte) bool
	meanwhile func()
	fired     bool
}

var errInjected = errors.New("injected store failure")

func (s *faultyStore) fail(op string, match func(key resource.Key, obj resource.Object, patch []byte) bool) *storeFault {
	f := &storeFault{op: op, match: match}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
	return f
}

// meanwhile runs change before the first call of op for which match holds,
// as another writer that acts at that moment of a reconcile would.
func (s *faultyStore) meanwhile(op string, match func(key resource.Key, obj resource.Object, patch []byte) bool, change func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &storeFault{op: op, match: match, meanwhile: change})
}

func (s *faultyStore) firedAll() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if !f.fired {
			return false
		}
	}
	return true
}

func (s *faultyStore) check(op string, key resource.Key, obj resource.Object, patch []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if !f.fired && f.op == op && f.match(key, obj, patch) {
			f.fired = true
			if f.meanwhile != nil {
				f.meanwhile()
				return nil
			}
			return errInjected
		}
	}
	return nil
}

func (s *faultyStore) Get(ctx context.Context, key resource.Key) (resource.Object, error) {
	if err := s.check("Get", key, nil, nil); err != nil {
		return nil, err
	}
	return s.Store.Get(ctx, key)
}

func (s *faultyStore) Create(ctx context.Context, obj resource.Object) (resource.Object, error) {
	if err := s.check("Create", resource.KeyOf(obj), obj, nil); err != nil {
		return nil, err
	}
	return s.Store.Create(ctx, obj)
}

func (s *faultyStore) Update(ctx context.Context, obj resource.Object) (resource.Object, error) {
	if err := s.check("Update", resource.KeyOf(obj), obj, nil); err != nil {
		return nil, err
	}
	return s.Store.Update(ctx, obj)
}

func (s *faultyStore) UpdateStatus(ctx context.Context, obj resource.Object) (resource.Object, error) {
	if err := s.check("UpdateStatus", resource.KeyOf(obj), obj, nil); err != nil {
		return nil, err
	}
	return s.Store.UpdateStatus(ctx, obj)
}

func (s *faultyStore) Patch(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error) {
	if err := s.check("Patch", key, nil, patch); err != nil {
		return nil, err
	}
	return s.Store.Patch(ctx, key, patch)
}

func (s *faultyStore) PatchStatus(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error) {
	if err := s.check("PatchStatus", key, nil, patch); err != nil {
		return nil, err
	}
	return s.Store.PatchStatus(ctx, key, patch)
}

func (s *faultyStore) Delete(ctx context.Context, key resource.Key, opts store.DeleteOptions) (resource.Object, error) {
	if err := s.check("Delete", key, nil, nil); err != nil {
		return nil, err
	}
	return s.Store.Delete(ctx, key, opts)
}

func (s *faultyStore) List(ctx context.Context, opts store.ListOptions) ([]resource.Object, int64, error) {
	if err := s.check("List", resource.Key{Kind: opts.Kind.Name, Namespace: opts.Namespace}, nil, nil); err != nil {
		return nil, 0, err
	}
	return s.Store.List(ctx, opts)
}

// Predicates for faults.

func onKind(kind string) func(resource.Key, resource.Object, []byte) bool {
	return func(k resource.Key, _ resource.Object, _ []byte) bool { return k.Kind == kind }
}

func onVMStatus(ok func(*resource.VM) bool) func(resource.Key, resource.Object, []byte) bool {
	return func(_ resource.Key, obj resource.Object, _ []byte) bool {
		v, isVM := obj.(*resource.VM)
		return isVM && ok(v)
	}
}

func onPatch(part string) func(resource.Key, resource.Object, []byte) bool {
	return func(_ resource.Key, _ resource.Object, patch []byte) bool { return bytes.Contains(patch, []byte(part)) }
}

func onTerminating(kind string) func(resource.Key, resource.Object, []byte) bool {
	return func(k resource.Key, obj resource.Object, _ []byte) bool {
		return k.Kind == kind && obj != nil && obj.GetMeta().Terminating()
	}
}
