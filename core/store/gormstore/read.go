package gormstore

import (
	"context"
	"errors"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Get returns a copy of the stored object.
func (s *DB) Get(ctx context.Context, key resource.Key) (resource.Object, error) {
	k, err := lookupKind(key.Kind)
	if err != nil {
		return nil, err
	}
	raw, _, err := s.body(ctx, key)
	if err != nil {
		return nil, err
	}
	return decode(k, raw)
}

// List returns copies of the objects opts select.
func (s *DB) List(ctx context.Context, opts store.ListOptions) ([]resource.Object, int64, error) {
	raws, rev, err := s.ListRaw(ctx, opts)
	if err != nil {
		return nil, 0, err
	}
	out := make([]resource.Object, len(raws))
	for i, raw := range raws {
		if out[i], err = decode(opts.Kind, raw); err != nil {
			return nil, 0, err
		}
	}
	return out, rev, nil
}

// maxListAttempts bounds how often a list is read again because objects
// changed, and left the event log, while it was read.
const maxListAttempts = 8

// ListRaw returns the JSON of the objects opts select: the states the
// index held at the list's revision.
func (s *DB) ListRaw(ctx context.Context, opts store.ListOptions) ([][]byte, int64, error) {
	match := opts.Matcher()
	for attempt := 1; ; attempt++ {
		s.imu.RLock()
		items := s.index.list(match, opts.Kind.Name)
		rev := s.rev.Load()
		s.imu.RUnlock()
		out, err := s.listRaw(ctx, opts.Kind.Name, items)
		if err == nil {
			s.release.read(size(out))
			return out, rev, nil
		}
		if !errors.Is(err, errSnapshotGone) {
			return nil, 0, err
		}
		if attempt == maxListAttempts {
			return nil, 0, resource.Errorf(resource.ReasonConflict, "the %s kept changing while they were listed: list again", opts.Kind.Plural)
		}
	}
}

// listRaw returns the JSON of items, the objects of kind as a snapshot of
// the index saw them, by namespace and name.
func (s *DB) listRaw(ctx context.Context, kind string, items []item) ([][]byte, error) {
	sortByRevision(items)
	revs := make([]int64, len(items))
	for i, it := range items {
		revs[i] = it.revision
	}
	states, err := s.statesAt(ctx, kind, revs)
	if err != nil {
		return nil, err
	}
	for i := range items {
		if states[i].raw == nil {
			return nil, errSnapshotGone
		}
		items[i].raw = states[i].raw
	}
	sortByName(items)
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it.raw
	}
	return out, nil
}
