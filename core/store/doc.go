// Package store keeps Paddock's objects: the Store interface every other
// layer uses, and its gorm implementation (SQLite by default, in WAL mode).
//
// It owns the semantics the API promises: one global, strictly increasing
// revision advanced by every write in the same transaction as the write;
// optimistic concurrency on resourceVersion; generation that moves only with
// spec; spec and status written apart; deletion held by finalizers; the
// owned-by deletion guard; label and field selectors; and watches that replay
// from a revision and then stream, from an event log kept in the database.
//
// Reads are served from an in-memory index of every object that is loaded
// at open and updated after each commit; the daemon is the store's only
// user (a lock file guarantees it), so the index never goes stale.
package store
