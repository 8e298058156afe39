package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/glebarez/sqlite"
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
