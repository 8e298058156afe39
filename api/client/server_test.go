package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock.dev/paddock/platform/unixsock"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

// daemon is the daemon's API over a real store, on a real Unix socket, in
// this process and without controllers, so that a test writes status as a
// controller would, when it wants to.
type daemon struct {
	t      *testing.T
	socket string
	store  *gormstore.DB
	srv    *http.Server
	l      *net.UnixListener
	cancel context.CancelFunc
}

func newDaemon(t *testing.T, retention int64) (*daemon, *client.Client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "pc") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(dir, "db")), EventRetention: retention})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, socket: filepath.Join(dir, "sock"), store: st}
	d.serve()
	t.Cleanup(func() {
		d.stop()
		st.Close()
	})
	return d, client.NewUnix(d.socket)
}

// serve starts a server on the socket; one already serving keeps its
// connections until stopped.
func (d *daemon) serve() {
	d.t.Helper()
	l, err := unixsock.Listen(d.socket)
	if err != nil {
		d.t.Fatal(err)
	}
	d.l = l.(*net.UnixListener)
	base, cancel := context.WithCancel(context.Background())
	d.srv = &http.Server{Handler: api.New(api.Config{Store: d.store}).Handler(), BaseContext: func(net.Listener) context.Context { return base }}
	d.cancel = cancel
	go d.srv.Serve(l)
}

// stop ends the watch streams and stops the server, as a daemon that shuts
// down does.
func (d *daemon) stop() {
	d.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d.srv.Shutdown(ctx)
}

// restart replaces the server by a new one on the same socket and store:
// the new one listens before the old one ends its streams.
func (d *daemon) restart() {
	old, oldL, oldCancel := d.srv, d.l, d.cancel
	oldL.SetUnlinkOnClose(false) // the path is the new listener's now
	d.serve()
	oldCancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	old.Shutdown(ctx)
}

func newVM(name string) *resource.VM {
	return &resource.VM{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindVM.Name},
		Metadata: resource.ObjectMeta{Name: name, Namespace: resource.DefaultNamespace},
		Spec:     resource.VMSpec{TemplateRef: "demo"},
	}
}

func mustCreate(t *testing.T, cl *client.Client, name string) *resource.VM {
	t.Helper()
	obj, err := cl.Create(context.Background(), newVM(name))
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*resource.VM)
}

// errAfter returns the result of fn, run in the background, or fails the
// test when it takes longer than d.
func errAfter[T any](t *testing.T, d time.Duration, fn func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(d):
		var zero T
		t.Fatalf("still waiting after %s", d)
		return zero, errors.New("unreachable")
	}
}
