package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// envPostgres names a PostgreSQL database to run the store's tests on
// instead of SQLite files; CI runs them on both.
const envPostgres = "PADDOCK_TEST_POSTGRES"

var schemas atomic.Int64

// testDatabase returns the address of a fresh, empty database for one
// test: a SQLite file, or with PADDOCK_TEST_POSTGRES a schema of its own
// in that PostgreSQL database, dropped when the test ends.
func testDatabase(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(envPostgres)
	if dsn == "" {
		return filepath.Join(t.TempDir(), "paddock.db")
	}
	admin, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("connect to %s: %v", envPostgres, err)
	}
	schema := fmt.Sprintf("t%d_%d", os.Getpid(), schemas.Add(1))
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		if db, err := admin.DB(); err == nil {
			db.Close()
		}
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}
