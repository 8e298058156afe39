package gormstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"paddock.dev/paddock/core/resource"
)

// SQLite's primary result codes this file tells apart.
const (
	sqliteBusy      = 5
	sqliteLocked    = 6
	sqliteReadOnly  = 8
	sqliteInterrupt = 9
	sqliteIOErr     = 10
	sqliteCorrupt   = 11
	sqliteFull      = 13
	sqliteCantOpen  = 14
	sqliteNotADB    = 26
)

// storageError turns a failed database operation into the error its caller
// sees: a full disk is InsufficientStorage (507); a database that is
// read-only, damaged or unreachable is Unavailable (503); both with a
// sentence naming the database and what to do. The first failure of a run
// is logged, and Healthy reports it until a write succeeds again.
//
// An operation whose context ended (its client left, or its deadline
// passed) is no failure of the database: its error wraps the context's,
// so a caller can tell a timeout, and nothing is logged or counted.
func (s *DB) storageError(ctx context.Context, what string, err error) error {
	if callerLeft(ctx, err) {
		return fmt.Errorf("cannot %s: %w", what, ctx.Err())
	}
	s.writeErrors.Add(1)
	reason, advice := classify(err)
	msg := fmt.Sprintf("cannot %s: the %s failed: %v", what, s.name, err)
	if reason != "" {
		msg = fmt.Sprintf("cannot %s: the %s %s (%v)", what, s.name, advice, err)
	}
	if s.failing.Swap(&msg) == nil {
		s.log.ErrorContext(ctx, "database writes fail", "database", s.name, "err", msg)
		s.startProbe()
	}
	if reason == "" {
		return fmt.Errorf("%s", msg)
	}
	e := resource.Errorf(reason, "%s", msg)
	if busy(err) {
		e.RetryAfter = busyTimeout
	}
	return e
}

// callerLeft reports whether err is the end of ctx: the context's own
// error, or SQLite's interruption of a statement when the context ended.
func callerLeft(ctx context.Context, err error) bool {
	if ctx.Err() == nil {
		return false
	}
	return errors.Is(err, ctx.Err()) || sqliteCode(err) == sqliteInterrupt
}

// sqliteCode is the primary result code of a SQLite error in err's chain,
// or 0 (SQLITE_OK) when err holds none.
func sqliteCode(err error) int {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return 0
	}
	return coded.Code() & 0xff
}

// busyTimeout is how long a SQLite write waits for another connection's
// lock before it fails (the busy_timeout of the connections).
const busyTimeout = 5 * time.Second

// busy reports whether err says another connection holds the lock.
func busy(err error) bool {
	code := sqliteCode(err)
	return code == sqliteBusy || code == sqliteLocked
}

// wrote notes a successful write: writes work again.
func (s *DB) wrote() {
	if s.failing.Load() != nil && s.failing.Swap(nil) != nil {
		s.log.Info("database writes succeed again", "database", s.name)
	}
}

// Healthy reports why the last write failed, or nil when it succeeded.
func (s *DB) Healthy() error {
	if msg := s.failing.Load(); msg != nil {
		return errors.New(*msg)
	}
	return nil
}

// classify returns the reason and the advice for a storage failure, or
// "" when err is not one of the failures a person can act on.
func classify(err error) (resource.Reason, string) {
	switch sqliteCode(err) {
	case sqliteBusy, sqliteLocked:
		return resource.ReasonUnavailable, fmt.Sprintf("is locked by another process, which has held it for more than %v: retry later; if it stays locked, find the process that has the file open (fuser, lsof) and stop it", busyTimeout)
	case sqliteFull:
		return resource.ReasonInsufficientStorage, "is on a full disk: free space on it, then retry"
	case sqliteReadOnly:
		return resource.ReasonUnavailable, "cannot be written (the file or its directory is read-only): make both writable by the daemon's user, then retry"
	case sqliteIOErr:
		return resource.ReasonUnavailable, "met a disk I/O error: check the disk, then restart the daemon"
	case sqliteCorrupt, sqliteNotADB:
		return resource.ReasonUnavailable, damagedAdvice
	case sqliteCantOpen:
		return resource.ReasonUnavailable, "cannot be opened: check that the file and its directory exist and belong to the daemon's user"
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch state := pg.SQLState(); {
		case state == "53100":
			return resource.ReasonInsufficientStorage, "is on a full disk: free space on the database server, then retry"
		case state == "25006":
			return resource.ReasonUnavailable, "is read-only: point --database at a writable PostgreSQL server"
		case strings.HasPrefix(state, "08"), strings.HasPrefix(state, "57P"), strings.HasPrefix(state, "53"):
			return resource.ReasonUnavailable, "is unreachable or out of resources: check the PostgreSQL server, then retry"
		}
	}
	return "", ""
}

// damagedAdvice is what to do about a damaged SQLite file.
const damagedAdvice = "is damaged: stop the daemon, then restore the file from a backup, or move it (with its -wal and -shm files) aside to start with an empty database"
