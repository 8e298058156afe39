// Package gormstore implements store.Store on a gorm database: SQLite by
// default (a file in WAL mode, through a driver without cgo) or PostgreSQL.
// The objects and an event log live in the database; watches replay from
// the log.
//
// Reads are served from an in-memory index of every object that is loaded
// at open and updated after each commit; the daemon is the store's only
// user (a lock guarantees it), so the index never goes stale.
package gormstore
