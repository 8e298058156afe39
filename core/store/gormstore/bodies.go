package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"paddock.dev/paddock/core/resource"
)

// The index holds no object's JSON: reads take it from the database, by
// key for the current state, or by revision for the state a snapshot of
// the index saw. Every write gives the object it writes a revision of its
// own, so a revision names one state of one object: it is in the objects
// table while it is the object's current state, and in the event log
// while the log keeps it.
//
// Reads are prepared statements of database/sql, without gorm: they are
// the daemon's most frequent queries, and gorm's reflection over each row
// cost more than the query.

// bodyBatch is how many objects one query reads by revision. Every query
// has this many parameters, padded with 0 (no revision), so that it is
// prepared once.
const bodyBatch = 256

// errSnapshotGone says a state a snapshot of the index saw is gone: the
// object changed since, and the event log no longer holds that state.
var errSnapshotGone = errors.New("the object changed and its earlier state left the event log")

func formatRevision(rev int64) string { return strconv.FormatInt(rev, 10) }

// reads are the prepared statements that read objects.
type reads struct {
	byKey      *sql.Stmt // the revision and body of kind, namespace, name
	objectsAt  *sql.Stmt // the revision and body of bodyBatch revisions
	eventsAt   *sql.Stmt // the same from the event log, deletes left out
	allObjects *sql.Stmt // kind, namespace, name, revision, body of every object
}

// prepareReads prepares the reads on db; postgres numbers parameters.
func prepareReads(ctx context.Context, db *sql.DB, postgres bool) (*reads, error) {
	param := func(i int) string {
		if postgres {
			return "$" + strconv.Itoa(i)
		}
		return "?"
	}
	in := make([]string, bodyBatch)
	for i := range in {
		in[i] = param(i + 1)
	}
	revisions := "revision IN (" + strings.Join(in, ",") + ")"
	var r reads
	for _, q := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&r.byKey, fmt.Sprintf("SELECT revision, body FROM objects WHERE kind = %s AND namespace = %s AND name = %s", param(1), param(2), param(3))},
		{&r.objectsAt, "SELECT revision, body FROM objects WHERE " + revisions},
		{&r.eventsAt, "SELECT revision, body FROM events WHERE type <> 'DELETED' AND " + revisions},
		{&r.allObjects, "SELECT kind, namespace, name, revision, body FROM objects"},
	} {
		stmt, err := db.PrepareContext(ctx, q.sql)
		if err != nil {
			r.close()
			return nil, err
		}
		*q.stmt = stmt
	}
	return &r, nil
}

func (r *reads) close() {
	for _, stmt := range []*sql.Stmt{r.byKey, r.objectsAt, r.eventsAt, r.allObjects} {
		if stmt != nil {
			stmt.Close()
		}
	}
}

// body returns the current JSON of key and its revision, or NotFound:
// from the cache, or from the database into the cache.
func (s *DB) body(ctx context.Context, key resource.Key) ([]byte, int64, error) {
	if raw, rev, ok := s.cache.get(key); ok {
		return raw, rev, nil
	}
	var raw []byte
	var rev int64
	err := s.reads.byKey.QueryRowContext(ctx, key.Kind, key.Namespace, key.Name).Scan(&rev, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, resource.NotFound(key)
	}
	if err != nil {
		return nil, 0, s.storageError(ctx, "read "+resource.Describe(key), err)
	}
	// Kept only if no write came after the read: writers change the
	// index and the cache together, under imu.
	s.imu.RLock()
	if e, ok := s.index.get(key); ok && e.revision == rev {
		s.cache.put(key, rev, raw)
	}
	s.imu.RUnlock()
	return raw, rev, nil
}

// bodiesAt returns the JSON of the states items name by revision, in
// their order, or errSnapshotGone.
func (s *DB) bodiesAt(ctx context.Context, items []item) ([][]byte, error) {
	out := make([][]byte, len(items))
	revs := make([]any, bodyBatch)
	for start := 0; start < len(items); start += bodyBatch {
		batch := items[start:min(start+bodyBatch, len(items))]
		found := make(map[int64][]byte, len(batch))
		for i := range revs {
			revs[i] = int64(0)
			if i < len(batch) {
				revs[i] = batch[i].revision
			}
		}
		if err := s.readRevisions(ctx, s.reads.objectsAt, revs, found); err != nil {
			return nil, err
		}
		if len(found) < len(batch) {
			// Changed since the snapshot: the state it saw is in the log.
			missing := 0
			for _, it := range batch {
				if _, ok := found[it.revision]; !ok {
					revs[missing] = it.revision
					missing++
				}
			}
			for i := missing; i < len(revs); i++ {
				revs[i] = int64(0)
			}
			if err := s.readRevisions(ctx, s.reads.eventsAt, revs, found); err != nil {
				return nil, err
			}
		}
		for i, it := range batch {
			raw, ok := found[it.revision]
			if !ok {
				return nil, errSnapshotGone
			}
			out[start+i] = raw
		}
	}
	return out, nil
}

// readRevisions adds to found the bodies stmt reads for revs.
func (s *DB) readRevisions(ctx context.Context, stmt *sql.Stmt, revs []any, found map[int64][]byte) error {
	rows, err := stmt.QueryContext(ctx, revs...)
	if err != nil {
		return s.storageError(ctx, "read objects", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rev int64
		var body []byte
		if err := rows.Scan(&rev, &body); err != nil {
			return s.storageError(ctx, "read objects", err)
		}
		found[rev] = body
	}
	if err := rows.Err(); err != nil {
		return s.storageError(ctx, "read objects", err)
	}
	return nil
}
