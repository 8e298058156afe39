package live

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// daemon is the real API over a real SQLite store on a real Unix socket,
// which the test stops and starts again as a daemon restart would.
type daemon struct {
	t      *testing.T
	socket string
	store  store.Store
	srv    *http.Server
}

func newDaemon(t *testing.T) *daemon {
	dir, err := os.MkdirTemp("", "pdlive")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	st, err := store.Open(context.Background(), store.Config{Dialector: store.SQLite(filepath.Join(dir, "db"))})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, socket: filepath.Join(dir, "paddock.sock"), store: st}
	t.Cleanup(func() { d.stop(); st.Close() })
	return d
}

func (d *daemon) start() {
	l, err := api.ListenUnix(d.socket)
	if err != nil {
		d.t.Fatal(err)
	}
	d.srv = &http.Server{Handler: api.New(api.Config{Store: d.store}).Handler()}
	go d.srv.Serve(l)
}

// stop ends the server and its watch streams and removes the socket, as a
// daemon that exits does.
func (d *daemon) stop() {
	if d.srv != nil {
		d.srv.Close()
		d.srv = nil
		os.Remove(d.socket)
	}
}

// states collects what the follower reports.
type states chan menu.State

// await returns the first state that ok accepts, failing after a while.
func (c states) await(t *testing.T, what string, ok func(menu.State) bool) menu.State {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case s := <-c:
			if ok(s) {
				return s
			}
		case <-deadline:
			t.Fatalf("no state with %s", what)
		}
	}
}

func TestFollowsTheDaemonThroughRestarts(t *testing.T) {
	d := newDaemon(t)
	cl := client.NewUnix(d.socket)
	got := make(states, 100)
	f := &Follower{Client: cl, Socket: d.socket, Changed: func(s menu.State) { got <- s },
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	got.await(t, "the daemon down before it starts", func(s menu.State) bool { return !s.DaemonUp })
	d.start()
	got.await(t, "the daemon up, no App", func(s menu.State) bool { return s.DaemonUp && s.App == nil })

	app := &resource.App{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "App"},
		Metadata: resource.ObjectMeta{Name: resource.AppName}}
	if _, err := cl.Create(ctx, app); err != nil {
		t.Fatal(err)
	}
	got.await(t, "the App created", func(s menu.State) bool { return s.App != nil && !s.App.Spec.Running })
	if _, err := cl.Patch(ctx, resource.KindApp, "", resource.AppName, []byte(`{"spec":{"running":true}}`), false); err != nil {
		t.Fatal(err)
	}
	got.await(t, "spec.running true", func(s menu.State) bool { return s.App != nil && s.App.Spec.Running })

	d.stop()
	got.await(t, "the daemon down after it stopped", func(s menu.State) bool { return !s.DaemonUp })
	// Changed while the tray could not see it: the tray must re-list.
	if _, err := d.store.Delete(ctx, resource.Key{Kind: "App", Name: resource.AppName}, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	d.start()
	got.await(t, "the daemon up again, the App gone", func(s menu.State) bool { return s.DaemonUp && s.App == nil })

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v", err)
	}
}
