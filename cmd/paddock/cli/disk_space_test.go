//go:build linux

package cli

import (
	"fmt"
	"strings"
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
