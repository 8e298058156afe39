package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/gofrs/flock"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// database is what the store knows of the database it opens: a name for
// messages, and for SQLite the file.
type database struct {
	name string
	file string // the SQLite file; "" for PostgreSQL
}

func describe(d gorm.Dialector) database {
	switch d := d.(type) {
	case *sqlite.Dialector:
		file, _, _ := strings.Cut(d.DSN, "?")
		return database{name: "SQLite database " + file, file: file}
	case *postgres.Dialector:
		return database{name: "PostgreSQL database " + redact(d.DSN)}
	}
	return database{name: d.Name() + " database"}
}

// prepareFile makes the SQLite file's directory if it is missing and the
// file itself if it is new, both private to the user (0700, 0600), and
// takes the file's mode down to 0600 with its -wal and -shm files: they
// hold every object. SQLite gives the files it creates the main file's
// mode.
func prepareFile(file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("create the database's directory: %w", err)
	}
	f, err := os.OpenFile(file, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the SQLite database %s: %w", file, err)
	}
	f.Close()
	for _, name := range []string{file, file + "-wal", file + "-shm"} {
		if err := os.Chmod(name, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("make %s private: %w", name, err)
		}
	}
	return nil
}

// dbLock keeps a second daemon off a database: it keeps an index in
// memory, so two would overwrite each other's writes.
type dbLock interface{ release() }

// lockFile locks the SQLite file through a lock file beside it that holds
// the holder's pid.
func lockFile(file string) (dbLock, error) {
	path := file + ".lock"
	l := flock.New(path, flock.SetPermissions(0o600))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock the SQLite database %s: %w", file, err)
	}
	if !ok {
		holder := ""
		if data, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(data))) > 0 {
			holder = " (pid " + strings.TrimSpace(string(data)) + ")"
		}
		return nil, fmt.Errorf("the SQLite database %s is in use by another paddock daemon%s: one daemon only may use a database; stop that one or give this one another --database", file, holder)
	}
	os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return fileLock{l}, nil
}

type fileLock struct{ l *flock.Flock }

func (f fileLock) release() { f.l.Unlock() }

// advisoryKey is the first half of the PostgreSQL advisory lock's key
// ("padd"); the second is the hash of the schema in use.
const advisoryKey = 0x70616464

// lockPostgres takes a session advisory lock on a connection of its own,
// held until release. A lock whose holder is not among the server's
// sessions belongs to one that is ending (a daemon that just exited):
// the lock is tried again for up to endingSessionWait.
func lockPostgres(ctx context.Context, db *sql.DB, name string) (dbLock, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to the %s: %w", name, err)
	}
	deadline := time.Now().Add(endingSessionWait)
	for {
		var ok bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1, hashtext(current_schema()))", advisoryKey).Scan(&ok); err != nil {
			conn.Close()
			return nil, fmt.Errorf("lock the %s: %w", name, err)
		}
		if ok {
			return pgLock{conn}, nil
		}
		var pid int
		var addr string
		conn.QueryRowContext(ctx, `SELECT a.pid, COALESCE(host(a.client_addr), 'a local socket')
			FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objsubid = 2
			AND l.objid::bigint = (hashtext(current_schema())::bigint & 4294967295)`, advisoryKey).Scan(&pid, &addr)
		if pid == 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		conn.Close()
		holder := "a session that is ending"
		if pid != 0 {
			holder = fmt.Sprintf("connected from %s, server process %d", addr, pid)
		}
		return nil, fmt.Errorf("the %s is in use by another paddock daemon (%s): one daemon only may use a database; stop that one or give this one another --database", name, holder)
	}
}

// endingSessionWait is how long a store waits for the lock of a session
// that is ending.
const endingSessionWait = 3 * time.Second

type pgLock struct{ conn *sql.Conn }

// release unlocks and gives the lock's connection back, for the store's
// Close to close. The unlock is what makes the database free when release
// returns: a closed connection ends its session, and the lock with it,
// only once the server has seen it go, and a store opened again at once
// found the database in use by a holder it could not name.
func (p pgLock) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", advisoryKey)
	p.conn.Close()
}

// checkSQLite checks the file's integrity (quick_check) and that it can be
// written, so that a damaged or read-only database stops the daemon at
// start with a sentence instead of failing writes later.
func (s *DB) checkSQLite(ctx context.Context) error {
	var result []string
	if err := s.db.WithContext(ctx).Raw("PRAGMA quick_check").Scan(&result).Error; err != nil {
		return s.storageError(ctx, "check the database", err)
	}
	if len(result) != 1 || result[0] != "ok" {
		detail := strings.Join(result, "; ")
		if len(detail) > 300 {
			detail = detail[:300] + "…"
		}
		return fmt.Errorf("the %s %s (quick_check: %s)", s.name, damagedAdvice, detail)
	}
	if err := s.db.WithContext(ctx).Exec("BEGIN IMMEDIATE; ROLLBACK").Error; err != nil {
		return s.storageError(ctx, "write to the database", err)
	}
	return nil
}
