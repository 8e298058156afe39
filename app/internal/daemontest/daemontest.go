// Package daemontest runs the daemon's real API over a real SQLite store
// on a real Unix socket inside a test, without controllers: the test plays
// their part by writing status. It is for the tray's tests only.
package daemontest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
)

// Daemon is the API a test can stop and start again, as a daemon restart
// would.
type Daemon struct {
	t      testing.TB
	Socket string
	Store  store.Store
	srv    *http.Server
}

// New returns a daemon that is not started yet.
func New(t testing.TB) *Daemon {
	t.Helper()
	// Not t.TempDir: socket paths are length-limited.
	dir, err := os.MkdirTemp("", "pdtray")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(dir, "db"))})
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{t: t, Socket: filepath.Join(dir, "paddock.sock"), Store: st}
	t.Cleanup(func() { d.Stop(); st.Close() })
	return d
}

// Start serves the API on the socket.
func (d *Daemon) Start() {
	l, err := api.ListenUnix(d.Socket)
	if err != nil {
		d.t.Fatal(err)
	}
	d.srv = &http.Server{Handler: api.New(api.Config{Store: d.Store}).Handler()}
	go d.srv.Serve(l)
}

// Stop ends the server and its watch streams and removes the socket, as a
// daemon that exits does.
func (d *Daemon) Stop() {
	if d.srv != nil {
		d.srv.Close()
		d.srv = nil
		os.Remove(d.Socket)
	}
}

// Client returns a client of the daemon.
func (d *Daemon) Client() *client.Client { return client.NewUnix(d.Socket) }

// SetAppConditions plays the App controller: it writes conditions into
// the App's status, at the App's current generation.
func (d *Daemon) SetAppConditions(conds ...metav1.Condition) {
	d.t.Helper()
	ctx := context.Background()
	key := resource.Key{Kind: resource.KindApp.Name, Name: resource.AppName}
	_, err := controller.UpdateStatus(ctx, d.Store, key, func(a *resource.App) (bool, error) {
		for _, c := range conds {
			resource.SetCondition(&a.Status.Conditions, a.Metadata.Generation, c)
		}
		return true, nil
	})
	if err != nil {
		d.t.Fatal(err)
	}
}

// Condition is a condition as the App controller writes it.
func Condition(kind, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: kind, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
}
