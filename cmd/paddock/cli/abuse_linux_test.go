//go:build linux

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A VM's disk larger than the free space where it will be is refused,
// naming the field and the directory (100TiB was accepted on a host with
// 75GiB free).
func TestVMDiskPastTheFreeSpaceIsRefused(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	applyTemplateCM(e, "t")
	status, got, _ := call(t, d.http, "POST", "http://paddock/api/v1alpha1/namespaces/default/vms", "application/json",
		`{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"big"},"spec":{"templateRef":"t","params":{"disk":"1000TiB"}}}`)
	if status != 422 || !strings.Contains(fmt.Sprint(got["errors"]), "spec.params.disk") ||
		!strings.Contains(fmt.Sprint(got["detail"]), "free in "+e.path("lima_home")+"/big, which will hold the VM's disk") {
		t.Fatalf("a disk of 1000TiB answered %d %v, want 422 naming spec.params.disk and the free space", status, got)
	}
}

// A daemon started where its data directory is on a read-only file system
// names the way out: a writable data directory, or the database elsewhere
// (it said only "make .../paddock.db private: chmod ...: read-only file
// system"). The read-only mount needs root.
func TestStartOnAReadOnlyFileSystemNamesTheWayOut(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a read-only bind mount needs root")
	}
	e := newEnv(t, "default")
	e.serve().stop(t, syscall.SIGTERM)
	data := filepath.Dir(e.path("dir"))
	if err := syscall.Mount(data, data, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind mount: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(data, syscall.MNT_DETACH) })
	if err := syscall.Mount("", data, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("make %s read-only: %v", data, err)
	}
	_, errOut, code := e.run("", "serve")
	if code == 0 {
		t.Fatal("the daemon served from a read-only data directory")
	}
	for _, want := range []string{"read-only file system", "XDG_DATA_HOME", "--database"} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("the daemon's error does not say %q: %s", want, errOut)
		}
	}
}

// At SIGTERM with 8 writers, every request the daemon took is answered
// (200, or 503 "shutting down"), none reset: it once reset 9 requests in 2
// of 12 trials, closing keep-alive connections a request was on its way
// on. A request to a daemon that stopped accepting is refused, not reset.
func TestSIGTERMWithWritersResetsNoRequest(t *testing.T) {
	for trial := range 4 {
		e := newEnv(t, "default")
		d := e.serve()
		const writers = 8
		for i := range writers {
			call(t, d.http, "POST", cmPath, "application/json", fmt.Sprintf(`{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"k%d"}}`, i))
		}
		var mu sync.Mutex
		var resets []string
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				c := unixClient(e.path("socket"))
				for n := 0; ; n++ {
					resp, err := c.Do(mergePatch(fmt.Sprintf("%s/k%d", cmPath, i), fmt.Sprintf(`{"data":{"n":"%d"}}`, n)))
					if err != nil {
						if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
							return // no longer accepting
						}
						mu.Lock()
						resets = append(resets, err.Error())
						mu.Unlock()
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 && resp.StatusCode != 503 {
						t.Errorf("a write answered %d", resp.StatusCode)
						return
					}
				}
			})
		}
		time.Sleep(500 * time.Millisecond)
		if code := d.stop(t, syscall.SIGTERM); code != 0 {
			t.Fatalf("exit %d: %s", code, d.log)
		}
		wg.Wait()
		if len(resets) > 0 {
			t.Fatalf("trial %d: %d requests were reset at SIGTERM: %v", trial, len(resets), resets)
		}
	}
}
