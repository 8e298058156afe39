package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/glebarez/sqlite"

	"paddock.dev/paddock/core/store/gormstore"
)

// envHoldDatabase makes the test binary the other process of a test: it
// holds the write lock of the SQLite file it names until its stdin closes.
const envHoldDatabase = "PADDOCK_TEST_HOLD_DATABASE"

func TestMain(m *testing.M) {
	if file := os.Getenv(envHoldDatabase); file != "" {
		if err := holdDatabase(file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdDatabase takes file's write lock, says "held", and keeps it until
// stdin closes.
func holdDatabase(file string) error {
	db, err := sql.Open(sqlite.DriverName, file)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	return nil
}

// openStore opens a SQLite store in t's temporary directory, closed when t
// ends.
func openStore(t testing.TB) *gormstore.DB {
	t.Helper()
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
