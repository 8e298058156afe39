package api_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/store/gormstore"
)

// newServer returns the API's handler over a store in a temporary SQLite file.
func newServer(t testing.TB) http.Handler {
	t.Helper()
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return api.New(api.Config{Store: st}).Handler()
}
