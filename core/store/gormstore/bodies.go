package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

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

// errSnapshotGone says a state a snapshot of the index saw is gone: the
// object changed since, and the event log no longer holds that state.
var errSnapshotGone = errors.New("the object changed and its earlier state left the event log")

func formatRevision(rev int64) string { return strconv.FormatInt(rev, 10) }

// reads are the prepared statements that read objects.
type reads struct {
	byKey      *sql.Stmt // the revision and body of kind, namespace, name
	between    *sql.Stmt // namespace, name, revision, body of kind's objects in a range of revisions
	logged     *sql.Stmt // namespace, name, body of the object a logged write at a revision wrote
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
	var r reads
	for _, q := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&r.byKey, fmt.Sprintf("SELECT revision, body FROM objects WHERE kind = %s AND namespace = %s AND name = %s", param(1), param(2), param(3))},
		{&r.between, fmt.Sprintf("SELECT namespace, name, revision, body FROM objects WHERE kind = %s AND revision >= %s AND revision <= %s ORDER BY revision",
			param(1), param(2), param(3))},
		{&r.logged, fmt.Sprintf("SELECT namespace, name, body FROM events WHERE revision = %s AND type <> 'DELETED'", param(1))},
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
	for _, stmt := range []*sql.Stmt{r.byKey, r.between, r.logged, r.allObjects} {
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
		return nil, 0, s.readError(ctx, "read "+resource.Describe(key), err)
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

// state is an object's JSON at some revision, with its namespace and name.
type state struct {
	nsName
	raw []byte
}

// statesAt returns the states of kind's objects at the revisions revs,
// which increase, in their order. A state is read from the objects table
// while it is current, else from the event log; one in neither (the
// object changed since, and the log was trimmed past that state) has no
// JSON.
func (s *DB) statesAt(ctx context.Context, kind string, revs []int64) ([]state, error) {
	out := make([]state, len(revs))
	if len(revs) == 0 {
		return out, nil
	}
	rows, err := s.reads.between.QueryContext(ctx, kind, revs[0], revs[len(revs)-1])
	if err != nil {
		return nil, s.readError(ctx, "read objects", err)
	}
	defer rows.Close()
	next := 0
	for rows.Next() {
		var st state
		var rev int64
		if err := rows.Scan(&st.namespace, &st.name, &rev, &st.raw); err != nil {
			return nil, s.readError(ctx, "read objects", err)
		}
		for next < len(revs) && revs[next] < rev {
			next++ // changed since: read from the log below
		}
		if next < len(revs) && revs[next] == rev {
			out[next] = st
			next++
		} // else an object the list does not select
	}
	if err := rows.Err(); err != nil {
		return nil, s.readError(ctx, "read objects", err)
	}
	rows.Close()
	for i, rev := range revs {
		if out[i].raw != nil {
			continue
		}
		st := &out[i]
		err := s.reads.logged.QueryRowContext(ctx, rev).Scan(&st.namespace, &st.name, &st.raw)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, s.readError(ctx, "read the event log", err)
		}
	}
	return out, nil
}

// readError is storageError for a read, unless the store was closed while
// it ran: a watch still reading its listing at shutdown is no failure of
// the database.
func (s *DB) readError(ctx context.Context, what string, err error) error {
	if s.isClosed() {
		return resource.Errorf(resource.ReasonInternal, "the store is closed")
	}
	return s.storageError(ctx, what, err)
}
