package gormstore

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
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
