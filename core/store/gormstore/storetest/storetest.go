// Package storetest gives tests a fresh, empty database for the store: a
// SQLite file, or, when PADDOCK_TEST_POSTGRES names a PostgreSQL database,
// a schema of its own in it. CI runs the store's tests on both.
package storetest

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

// EnvPostgres names the PostgreSQL database tests may use.
const EnvPostgres = "PADDOCK_TEST_POSTGRES"

var schemas atomic.Int64

// Database returns the address of a fresh database for one test: a SQLite
// file, or with PADDOCK_TEST_POSTGRES a PostgreSQL schema of its own.
func Database(t testing.TB) string {
	t.Helper()
	if dsn := os.Getenv(EnvPostgres); dsn != "" {
		return PostgresSchema(t, dsn)
	}
	return filepath.Join(t.TempDir(), "paddock.db")
}

// PostgresSchema makes a schema for one test in the database dsn names,
// dropped when the test ends, and returns an address that uses it.
func PostgresSchema(t testing.TB, dsn string) string {
	t.Helper()
	admin, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvPostgres, err)
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
