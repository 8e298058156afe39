package gormstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// A full disk answers InsufficientStorage naming the file, is logged once
// without the object's data, and Healthy reports it until a write succeeds.
// SQLite's max_page_count makes the file full on demand, as a full disk
// does.
func TestFullDatabaseIsReportedOnceWithoutData(t *testing.T) {
	var logs bytes.Buffer
	file := filepath.Join(t.TempDir(), "paddock.db")
	s, err := Open(context.Background(), Config{Dialector: SQLite(file), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pages int
	s.db.Raw("PRAGMA page_count").Scan(&pages)
	s.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+2))

	secret := "SECRET-" + strings.Repeat("x", 64<<10)
	for i := 0; i < 2; i++ {
		cm := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
			Metadata: resource.ObjectMeta{Name: "big"}, Data: map[string]string{"k": secret}}
		_, err := s.Create(context.Background(), cm)
		if resource.ReasonOf(err) != resource.ReasonInsufficientStorage || !strings.Contains(err.Error(), file) {
			t.Fatalf("write to a full database: %v; want InsufficientStorage naming %s", err, file)
		}
	}
	if s.Healthy() == nil {
		t.Fatal("Healthy is nil while writes fail")
	}
	if n := strings.Count(logs.String(), "database writes fail"); n != 1 {
		t.Fatalf("the failure was logged %d times, want once: %s", n, logs.String())
	}
	if strings.Contains(logs.String(), "SECRET-") {
		t.Fatal("the log holds the object's data")
	}

	s.db.Exec("PRAGMA max_page_count = 1000000")
	cm := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: "big"}, Data: map[string]string{"k": secret}}
	if _, err := s.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	if err := s.Healthy(); err != nil {
		t.Fatalf("Healthy after a successful write: %v", err)
	}
}

// A read whose client left, or whose deadline passed, fails with the
// context's error and is no failure of the database: Healthy stays nil
// and nothing is logged. A wait with ?timeout=1ms once answered 500 and
// marked the database failing, because its replay of the event log was
// cut by its own deadline.
func TestAReadWhoseContextEndedIsNoDatabaseFailure(t *testing.T) {
	var logs bytes.Buffer
	s, err := Open(context.Background(), Config{Dialector: SQLite(filepath.Join(t.TempDir(), "paddock.db")), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"a", "b"} {
		cm := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"}, Metadata: resource.ObjectMeta{Name: name}}
		if _, err := s.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	// A watch from between the two replays the event log.
	w, err := s.Watch(context.Background(), store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: s.Revision() - 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ended, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ended.Done()
	_, err = w.Next(ended)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a replay past its deadline: %v; want the deadline's error", err)
	}
	if err := s.Healthy(); err != nil {
		t.Fatalf("Healthy after a read whose deadline passed: %v", err)
	}
	if strings.Contains(logs.String(), "database writes fail") {
		t.Fatalf("a read whose deadline passed was logged as a failure: %s", logs.String())
	}
}
