package gormstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Writes commit in groups. A writer checks its write against the newest
// state of the store under s.mu, as if it were alone, and stages it: the
// write takes the next revision and joins the open batch, and the staged
// overlay holds it for the writers that come after. The writer then waits
// until its batch is committed. One batch commits at a time, in one
// transaction, by whichever of its writers is first to find no commit
// running; the writers that staged meanwhile form the next batch. So
// writes that arrive while one commits share the next commit: its
// transaction, its pages of SQLite's write-ahead log, PostgreSQL's flush
// of its log. Each write is acknowledged only once it is committed.
//
// Readers see committed writes only: the index, the cache and the
// revision move when a batch has committed, and its events are published
// then. A batch that fails fails every write staged after it too, since
// each was checked against the failed writes: none of them happened.

// batch is the writes that commit in one transaction, in revision order.
type batch struct {
	writes []pendingWrite
	done   chan struct{} // closed once the batch committed or failed
	// failed is why the batch was not committed, set before done closes:
	// the database's error, or errStoreClosed.
	failed error
}

// errStoreClosed fails the writes staged when the store closes.
var errStoreClosed = errors.New("the store is closed")

// pendingWrite is a staged write: the object as it will be stored.
type pendingWrite struct {
	typ store.EventType
	key resource.Key
	rev int64
	raw []byte
	obj resource.Object
}

// stagedState is the newest staged write of an object, for the writers
// that check theirs against it.
type stagedState struct {
	rev     int64
	raw     []byte
	deleted bool
}

// staged is what stage made: the object as it will be stored, and the
// batch its writer waits for; a nil batch when there was nothing to write.
type staged struct {
	obj   resource.Object
	batch *batch
}

// stage gives obj the next revision and adds the change to the open batch.
// The caller holds s.mu, and then waits for the batch with commit.
func (s *DB) stage(typ store.EventType, obj resource.Object) (staged, error) {
	if s.closed.Load() {
		return staged{}, resource.Errorf(resource.ReasonInternal, "the store is closed")
	}
	rev := s.next + 1
	key := resource.KeyOf(obj)
	obj.GetMeta().ResourceVersion = formatRevision(rev)
	raw, err := encode(obj)
	if err != nil {
		return staged{}, err
	}
	s.next = rev
	if s.open == nil {
		s.open = &batch{done: make(chan struct{})}
	}
	s.open.writes = append(s.open.writes, pendingWrite{typ, key, rev, raw, obj})
	s.staged[key] = stagedState{rev, raw, typ == store.Deleted}
	return staged{obj, s.open}, nil
}

// write runs stage under s.mu and waits until the write it staged, if
// any, is committed. It returns the object as stored.
func (s *DB) write(ctx context.Context, stage func() (staged, error)) (resource.Object, error) {
	s.mu.Lock()
	st, err := stage()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return s.commit(ctx, st)
}

// commit waits until st's batch is committed, committing it when no
// other writer does. A write that was staged completes even if its caller
// gives up: the caller's answer may be lost, the write is not half done.
func (s *DB) commit(ctx context.Context, st staged) (resource.Object, error) {
	b := st.batch
	if b == nil {
		return st.obj, nil
	}
	s.committed(context.WithoutCancel(ctx), b)
	switch {
	case errors.Is(b.failed, errStoreClosed):
		return nil, resource.Errorf(resource.ReasonInternal, "the store closed before the write was committed")
	case b.failed != nil:
		return nil, s.storageError(ctx, "write "+resource.Describe(resource.KeyOf(st.obj)), b.failed)
	}
	// obj is the store's own copy, or the new object the caller gave
	// Create: the store keeps only its JSON.
	return st.obj, nil
}

// committed returns once b is committed or failed, committing it when no
// other writer does.
func (s *DB) committed(ctx context.Context, b *batch) {
	s.committing.Lock()
	defer s.committing.Unlock()
	select {
	case <-b.done:
	default:
		// Batches commit in order, one at a time, and each is taken
		// whole: a batch not done is the open one.
		s.mu.Lock()
		s.open = nil
		s.mu.Unlock()
		s.flush(ctx, b)
	}
}

// flush commits b in one transaction with its events, then updates the
// index, the cache and the revision, and tells the watchers. The caller
// holds s.committing.
func (s *DB) flush(ctx context.Context, b *batch) {
	defer close(b.done)
	first, last := b.writes[0].rev, b.writes[len(b.writes)-1].rev
	var added int64
	for _, w := range b.writes {
		added += int64(len(w.raw))
	}
	size := s.logBytes.Load() + added
	trim := last/pruneEvery != (first-1)/pruneEvery || size > s.maxBytes
	var cut compaction
	now := time.Now().Unix()
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Plain statements: gorm's building of them from the rows'
		// structs cost more than a tenth of a small write.
		for _, w := range b.writes {
			var err error
			if w.typ == store.Deleted {
				err = tx.Exec(deleteObject, w.key.Kind, w.key.Namespace, w.key.Name).Error
			} else {
				err = tx.Exec(upsertObject, w.key.Kind, w.key.Namespace, w.key.Name, w.rev, w.raw).Error
			}
			if err != nil {
				return err
			}
			if err := tx.Exec(insertEvent, w.rev, string(w.typ), w.key.Kind, w.key.Namespace, w.key.Name, w.raw, now).Error; err != nil {
				return err
			}
		}
		if !trim {
			return nil
		}
		var err error
		cut, err = s.compact(tx, last, size)
		return err
	})
	if err != nil {
		s.fail(b, err)
		return
	}
	s.wrote()
	s.logBytes.Add(added)
	s.compacted(ctx, cut)
	// The revision moves with the index, so that a watch that reads both
	// under imu sees every write up to the revision in the index, and
	// every later one published.
	s.imu.Lock()
	for _, w := range b.writes {
		if w.typ == store.Deleted {
			s.index.delete(w.key)
			s.cache.remove(w.key)
		} else {
			s.index.put(w.key, entry{w.rev, labelSetOf(w.obj.GetMeta().Labels), len(w.raw)})
			s.cache.put(w.key, w.rev, w.raw)
		}
	}
	s.rev.Store(last)
	s.imu.Unlock()
	for _, w := range b.writes {
		s.hub.Publish(store.Event{Type: w.typ, Revision: w.rev, Key: w.key, Labels: w.obj.GetMeta().Labels, Object: w.raw})
	}
	// The overlay holds only what is not committed yet.
	s.mu.Lock()
	for _, w := range b.writes {
		if s.staged[w.key].rev == w.rev {
			delete(s.staged, w.key)
		}
	}
	s.mu.Unlock()
}

// fail ends b, which the database failed with err, and the open batch
// with it: its writes were checked against b's.
func (s *DB) fail(b *batch, err error) {
	b.failed = err
	s.mu.Lock()
	defer s.mu.Unlock()
	if next := s.open; next != nil {
		s.open = nil
		next.failed = fmt.Errorf("%w (a write committed just before this one failed, and this one was checked against it)", err)
		close(next.done)
	}
	clear(s.staged)
	s.next = s.rev.Load()
}

// failOpen ends the open batch because the store closes. The caller
// holds s.committing and s.mu.
func (s *DB) failOpen() {
	if b := s.open; b != nil {
		s.open = nil
		b.failed = errStoreClosed
		close(b.done)
	}
	clear(s.staged)
}

// newest returns key's newest JSON and revision, staged or committed, or
// NotFound. Writers check their writes against it; the caller holds s.mu.
func (s *DB) newest(ctx context.Context, key resource.Key) ([]byte, int64, error) {
	if st, ok := s.staged[key]; ok {
		if st.deleted {
			return nil, 0, resource.NotFound(key)
		}
		return st.raw, st.rev, nil
	}
	return s.body(ctx, key)
}

// newestRevision returns the revision of key's newest write, staged or
// committed, and whether the object exists after it. The caller holds s.mu.
func (s *DB) newestRevision(key resource.Key) (int64, bool) {
	if st, ok := s.staged[key]; ok {
		return st.rev, !st.deleted
	}
	s.imu.RLock()
	defer s.imu.RUnlock()
	e, ok := s.index.get(key)
	return e.revision, ok
}

// namespacesNamed returns the namespaces in which an object of kind is
// named name, counting staged writes. The caller holds s.mu.
func (s *DB) namespacesNamed(kind, name string) []string {
	s.imu.RLock()
	committed := s.index.byName(kind, name)
	s.imu.RUnlock()
	var out []string
	for _, ns := range committed {
		if st, ok := s.staged[resource.Key{Kind: kind, Namespace: ns, Name: name}]; !ok || !st.deleted {
			out = append(out, ns)
		}
	}
	for key, st := range s.staged {
		if key.Kind == kind && key.Name == name && !st.deleted && !slices.Contains(committed, key.Namespace) {
			out = append(out, key.Namespace)
		}
	}
	return out
}
