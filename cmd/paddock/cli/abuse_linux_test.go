//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
