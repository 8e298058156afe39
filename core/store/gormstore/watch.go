package gormstore

import (
	"context"
	"encoding/json"
	"fmt"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Watch starts a watch; it ends when ctx is done or Stop is called. It
// takes no write lock: the listing is a snapshot of the index and the
// replay is read from the log as the watcher asks for it.
func (s *DB) Watch(ctx context.Context, opts store.WatchOptions) (*store.Watcher, error) {
	match := opts.Matcher()
	kind := opts.Kind.Name
	s.imu.RLock()
	defer s.imu.RUnlock()
	rev := s.rev.Load()
	var backlog store.Backlog
	switch from, oldest := opts.ResourceVersion, s.oldest.Load(); {
	case from == 0:
		backlog = s.listing(kind, s.index.listing(match, kind))
	case from > rev:
		return nil, resource.Errorf(resource.ReasonGone,
			"resourceVersion %d is newer than the store's revision %d: list again and watch from the list's resourceVersion", from, rev)
	case from < oldest-1:
		return nil, resource.Errorf(resource.ReasonGone,
			"resourceVersion %d is too old to resume from (the oldest kept is %d): list again and watch from the list's resourceVersion", from, oldest-1)
	default:
		backlog = s.replay(kind, from, rev)
	}
	if s.isClosed() {
		return nil, resource.Errorf(resource.ReasonInternal, "the store is closed")
	}
	w := s.hub.Watch(match, rev, backlog)
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

// A watcher takes a listing's objects a batch at a time: at most
// listingBatch objects, and no more than listingBytes of their JSON unless
// one object alone is larger. Each watcher holds its batch until it has
// read it, and the controllers start three watches of every ConfigMap at
// once: a batch bounded by count alone held a database of large objects
// in memory three times over at start. Listings read their batches one
// at a time (listingRead): what three read at once, with the copies the
// driver makes, was most of the daemon's peak at start.
const (
	listingBatch = 256
	listingBytes = 1 << 20
)

// listing yields an ADDED event per object of kind items name, in their
// order, with the object as it was when they were listed. An object that
// changed since, and whose earlier state left the event log, is passed as
// superseded: its first live event, which the watcher holds, stands in
// for it.
func (s *DB) listing(kind string, items []listed) store.Backlog {
	var lastLabels labelSet
	var lastMap map[string]string
	read := 0
	revs := make([]int64, listingBatch)
	return func(ctx context.Context) ([]store.Event, error) {
		if len(items) == 0 {
			s.release.read(read)
			return nil, nil
		}
		n, bytes := 0, 0
		for n < min(listingBatch, len(items)) && (n == 0 || bytes+items[n].size <= listingBytes) {
			revs[n] = items[n].revision
			bytes += items[n].size
			n++
		}
		select {
		case s.listingRead <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		states, err := s.statesAt(ctx, kind, revs[:n])
		<-s.listingRead
		if err != nil {
			return nil, err
		}
		batch := make([]store.Event, n)
		for i, it := range items[:n] {
			// Objects alike share their labels: events of the same labels
			// share a map, which no watcher changes.
			if it.labels != lastLabels || lastMap == nil {
				lastLabels, lastMap = it.labels, it.labels.Map()
			}
			st := states[i]
			if st.raw == nil {
				nn := splitKey(it.key)
				batch[i] = store.Event{Key: resource.Key{Kind: kind, Namespace: nn.namespace, Name: nn.name}, Superseded: true}
				continue
			}
			key := resource.Key{Kind: kind, Namespace: st.namespace, Name: st.name}
			batch[i] = store.Event{Type: store.Added, Revision: it.revision, Key: key, Labels: lastMap, Object: st.raw}
			read += len(st.raw)
		}
		items = items[n:]
		return batch, nil
	}
}

// replayBatch is how many logged events a watcher reads at once; events
// hold up to a few MiB each.
const replayBatch = 16

// replay yields every logged event of kind after revision from up to
// revision to, read a batch at a time. If the log is trimmed past the
// next event to read, the watch ends with ErrReplayTrimmed: resuming
// from the last revision it delivered would fail with Gone, and the
// watcher lists again.
func (s *DB) replay(kind string, from, to int64) store.Backlog {
	return func(ctx context.Context) ([]store.Event, error) {
		if from >= to {
			return nil, nil
		}
		var rows []eventRow
		err := s.db.WithContext(ctx).Where("revision > ? AND revision <= ? AND kind = ?", from, to, kind).
			Order("revision").Limit(replayBatch).Find(&rows).Error
		if err != nil {
			return nil, s.storageError(ctx, "read the event log", err)
		}
		if from < s.oldest.Load()-1 {
			return nil, store.ErrReplayTrimmed
		}
		out := make([]store.Event, len(rows))
		for i, r := range rows {
			var meta struct {
				Metadata struct {
					Labels map[string]string `json:"labels"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(r.Body, &meta); err != nil {
				return nil, fmt.Errorf("read event %d: %w", r.Revision, err)
			}
			key := resource.Key{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
			out[i] = store.Event{Type: store.EventType(r.Type), Revision: r.Revision, Key: key, Labels: meta.Metadata.Labels, Object: r.Body}
		}
		if len(rows) < replayBatch {
			from = to
		} else {
			from = rows[len(rows)-1].Revision
		}
		return out, nil
	}
}

// size returns the bytes of raws.
func size(raws [][]byte) int {
	n := 0
	for _, raw := range raws {
		n += len(raw)
	}
	return n
}
