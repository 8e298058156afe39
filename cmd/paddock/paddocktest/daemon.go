package paddocktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock.dev/paddock/platform/unixsock"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
)

// Daemon is the daemon's real API over a real SQLite store on a real Unix
// socket, served inside the test, without controllers or machines: the test
// plays the controllers' part by writing status, and the host agents' by
// writing their logs, which the API serves. The test can stop it and start
// it again, as a daemon restart would.
type Daemon struct {
	t      testing.TB
	Socket string
	Store  store.Store
	srv    *http.Server
	logs   hostLogs
}

// NewDaemon returns a daemon that is not started yet.
func NewDaemon(t testing.TB) *Daemon {
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
	d := &Daemon{t: t, Socket: filepath.Join(dir, "paddock.sock"), Store: st, logs: hostLogs{dir}}
	t.Cleanup(func() { d.Stop(); st.Close() })
	return d
}

// Start serves the API on the socket.
func (d *Daemon) Start() {
	l, err := unixsock.Listen(d.Socket)
	if err != nil {
		d.t.Fatal(err)
	}
	d.srv = &http.Server{Handler: api.New(api.Config{Store: d.Store, VMAccess: d.logs}).Handler()}
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

// SetVMConditions plays the VM controller: it writes conditions into the
// status of VM ns/name, at its current generation.
func (d *Daemon) SetVMConditions(ns, name string, conds ...metav1.Condition) {
	d.t.Helper()
	key := resource.Key{Kind: resource.KindVM.Name, Namespace: ns, Name: name}
	_, err := controller.UpdateStatus(context.Background(), d.Store, key, func(v *resource.VM) (bool, error) {
		for _, c := range conds {
			resource.SetCondition(&v.Status.Conditions, v.Metadata.Generation, c)
		}
		return true, nil
	})
	if err != nil {
		d.t.Fatal(err)
	}
}

// AppendHostAgentLog plays VM name's host agent: it appends a line to the
// machine's host agent log for each message, as Lima's writes them (JSON,
// with the time to the second), which the API's logs endpoint serves.
func (d *Daemon) AppendHostAgentLog(name string, msgs ...string) {
	d.t.Helper()
	path, _ := d.logs.LogPath(name, resource.VMLogHostAgent)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	for _, msg := range msgs {
		line, _ := json.Marshal(map[string]string{"level": "info", "msg": msg, "time": time.Now().Format(time.RFC3339)})
		if _, err := f.Write(append(line, '\n')); err != nil {
			d.t.Fatal(err)
		}
	}
}

// RemoveHostAgentLog plays a new start of VM name's host agent, which
// removes the log of the one before (as Lima's start does).
func (d *Daemon) RemoveHostAgentLog(name string) {
	d.t.Helper()
	path, _ := d.logs.LogPath(name, resource.VMLogHostAgent)
	if err := os.Remove(path); err != nil {
		d.t.Fatal(err)
	}
}

// hostLogs plays the VM driver's part of the API: every machine's logs are
// files in one directory. There are no machines to reach over ssh.
type hostLogs struct{ dir string }

func (h hostLogs) SSH(name string) (resource.VMSSH, error) {
	return resource.VMSSH{}, fmt.Errorf("the test daemon runs no machine %s", name)
}

func (h hostLogs) LogPath(name string, stream resource.VMLogStream) (string, error) {
	return filepath.Join(h.dir, name+"."+string(stream)+".log"), nil
}
