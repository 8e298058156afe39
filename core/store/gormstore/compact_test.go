package gormstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// The event log keeps at most its byte bound (and the newest event), and
// once large objects are deleted and their events trimmed, the SQLite file
// gives their space back.
func TestEventLogBoundedInBytesAndSpaceReturns(t *testing.T) {
	address := storetest.Database(t)
	cfg := config(t, address)
	cfg.EventMaxBytes = 4 << 20
	s, err := gormstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	big := strings.Repeat("x", 900<<10)
	const n = 30
	for i := range n {
		mustCreate(t, s, configMap("default", fmt.Sprint("big-", i), map[string]string{"k": big}))
		if _, bytes, err := s.EventLogSize(ctx); err != nil || bytes > cfg.EventMaxBytes {
			t.Fatalf("after %d writes the event log holds %d bytes (%v), more than its bound %d", i+1, bytes, err, cfg.EventMaxBytes)
		}
	}
	peak := fileSize(address)
	for i := range n {
		if _, err := s.Delete(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprint("big-", i)}, store.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if events, bytes, err := s.EventLogSize(ctx); err != nil || bytes > cfg.EventMaxBytes || events < 1 {
		t.Fatalf("the event log holds %d events of %d bytes (%v), want at least the newest and at most %d bytes", events, bytes, err, cfg.EventMaxBytes)
	}
	// A watch resumes from the newest revision still; older ones are Gone.
	w, err := s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: s.Revision() - 1})
	if err != nil {
		t.Fatalf("resume from the newest event: %v", err)
	}
	w.Stop()
	_, err = s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: 1})
	wantReason(t, err, resource.ReasonGone)
	if peak < 0 {
		t.Log("PostgreSQL: the server reuses freed space; no file to measure")
		return
	}
	after := fileSize(address)
	t.Logf("database and its log: %d MiB with %d objects of 900 KiB, %d MiB after they were deleted", peak>>20, n, after>>20)
	if peak < n*900<<10 || after > peak/2 {
		t.Fatalf("the file did not give the deleted objects' space back: %d bytes at the peak, %d after", peak, after)
	}
}

// Events older than the age bound are trimmed, at the latest when the
// daemon opens the database again; the newest stays.
func TestEventLogTrimmedByAge(t *testing.T) {
	address := storetest.Database(t)
	s := openStore(t, address)
	for i := range 3 {
		mustCreate(t, s, configMap("default", fmt.Sprint("cm-", i), nil))
	}
	s.Close()
	time.Sleep(1100 * time.Millisecond) // event times are in seconds
	cfg := config(t, address)
	cfg.EventMaxAge = time.Millisecond
	s, err := gormstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if events, _, err := s.EventLogSize(context.Background()); err != nil || events != 1 {
		t.Fatalf("the log keeps %d events (%v), want the newest only", events, err)
	}
	_, err = s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: 1})
	wantReason(t, err, resource.ReasonGone)
}

// A SQLite database made before incremental vacuum is switched to it once.
func TestOldSQLiteDatabaseIsSwitchedToIncrementalVacuum(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paddock.db")
	old, err := gorm.Open(sqlite.Open(path), &gorm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Exec("CREATE TABLE earlier (a)").Error; err != nil {
		t.Fatal(err)
	}
	if mode := autoVacuum(t, old); mode != 0 {
		t.Fatalf("a new SQLite file has auto_vacuum %d, want 0 (none) for this test to mean anything", mode)
	}
	sqlDB, _ := old.DB()
	sqlDB.Close()
	s := openStore(t, path)
	mustCreate(t, s, configMap("default", "cm", nil))
	s.Close()
	again, err := gorm.Open(sqlite.Open(path), &gorm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db, _ := again.DB(); db.Close() }()
	if mode := autoVacuum(t, again); mode != 2 {
		t.Fatalf("auto_vacuum is %d after the daemon opened the file, want 2 (incremental)", mode)
	}
}

func autoVacuum(t *testing.T, db *gorm.DB) int {
	t.Helper()
	var mode int
	if err := db.Raw("PRAGMA auto_vacuum").Scan(&mode).Error; err != nil {
		t.Fatal(err)
	}
	return mode
}

// fileSize is the bytes of a SQLite database and its write-ahead log, or
// -1 for a PostgreSQL address.
func fileSize(address string) int64 {
	if strings.Contains(address, "://") {
		return -1
	}
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(address + suffix); err == nil {
			total += fi.Size()
		}
	}
	return total
}
