package api_test

import (
	"net/http"
	"testing"

	"paddock.dev/paddock/api"
)

// newServer returns the API's handler over a store in a temporary SQLite file.
func newServer(t testing.TB) http.Handler {
	t.Helper()
	st := openStore(t)
	return api.New(api.Config{Store: st}).Handler()
}
