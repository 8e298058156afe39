// Package gormstore implements store.Store on a gorm database: SQLite by
// default (a file in WAL mode, through a driver without cgo) or PostgreSQL.
// The objects and an event log live in the database; watches replay from
// the log.
//
// An in-memory index holds every object's metadata (its key, revision, UID
// and labels), loaded at open and updated after each commit: guards,
// selectors and the listings of watches read it. Objects' JSON is read
// from the database, through a small cache of the objects used last. The
// daemon is the store's only user (a lock guarantees it), so neither goes
// stale.
package gormstore
