package api_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"paddock.dev/paddock/platform/unixsock"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/store/gormstore"
)

// socketServer is the API server over a real store, served on a Unix
// socket as the daemon serves it.
type socketServer struct {
	api    *api.Server
	http   *http.Server
	store  *gormstore.DB
	socket string
	client *http.Client
}

// serveSocket serves the API over a store in a temporary SQLite file
// opened with cfg (its Dialector is set here) on a Unix socket.
func serveSocket(t testing.TB, cfg gormstore.Config) *socketServer {
	t.Helper()
	return serveSocketAt(t, cfg, t.TempDir())
}

// serveSocketAt is serveSocket with the database and socket in dir.
func serveSocketAt(t testing.TB, cfg gormstore.Config, dir string) *socketServer {
	t.Helper()
	cfg.Dialector = gormstore.SQLite(filepath.Join(dir, "paddock.db"))
	st, err := gormstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &socketServer{store: st, api: api.New(api.Config{Store: st}), socket: filepath.Join(dir, "api.sock")}
	l, err := unixsock.Listen(s.socket)
	if err != nil {
		t.Fatal(err)
	}
	s.http = s.api.HTTPServer(s.api.Handler(), context.Background())
	go s.http.Serve(l)
	s.client = unixClient(s.socket)
	t.Cleanup(func() {
		s.api.Shutdown(s.http, time.Second)
		st.Close()
	})
	return s
}

func unixClient(socket string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
}
