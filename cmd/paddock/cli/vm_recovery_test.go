//go:build linux

package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/lima"
)

// These tests provoke the crashes the VM controller must recover from,
// without booting a VM: creating a machine needs none.

const stillTemplate = `images:
- location: /var/lib/paddock/none.qcow2
  arch: x86_64
user: {name: paddock, uid: 1000}
containerd: {system: false, user: false}
`

func applyTemplateCM(e *env, name string) {
	e.t.Helper()
	out, errOut, code := e.run("apiVersion: paddock.dev/v1alpha1\nkind: ConfigMap\nmetadata: {name: "+name+"}\ndata:\n  template: |\n    "+
		strings.ReplaceAll(strings.TrimSpace(stillTemplate), "\n", "\n    ")+"\n", "apply", "-f", "-")
	if code != 0 {
		e.t.Fatalf("apply template: %s %s", out, errOut)
	}
}

// A daemon that died between creating a machine and recording it left the
// machine and its pending-create marker: the next reconcile removes that
// machine and creates the VM's own.
func TestVMCreateInterruptedBeforeRecordIsCleanedUp(t *testing.T) {
	e := newEnv(t, "default")
	limaHome := e.path("lima_home")
	// What the crashed daemon did: create the machine, not record it.
	d := &lima.Driver{LimaHome: limaHome, Executable: paddockBin, Logger: logging.New(os.Stderr, slog.LevelWarn)}
	if err := d.Create(context.Background(), "dev", []byte(stillTemplate+"cpus: 3\n")); err != nil {
		t.Fatal(err)
	}
	if names, _ := d.Uncommitted(); len(names) != 1 {
		t.Fatalf("pending markers %v, want dev's", names)
	}
	e.serve()
	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")
	// The marker goes just after Created is recorded (a crash between the
	// two must leave it), so vm create may return a moment before.
	eventually(t, 30*time.Second, "the pending marker goes once the VM is recorded", func() bool {
		names, err := d.Uncommitted()
		return err == nil && len(names) == 0
	})
	cfg, err := os.ReadFile(filepath.Join(limaHome, "dev", filenames.LimaYAML))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "cpus: 3") {
		t.Fatal("the unrecorded machine was kept instead of made anew from the VM's template")
	}
}

// A template copy that an interrupted teardown left (its owner, an earlier
// VM of the same name, is gone) is taken over by the new VM.
func TestVMTakesOverATemplateCopyLeftBehind(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	applyTemplateCM(e, "debian")
	left := `apiVersion: paddock.dev/v1alpha1
kind: ConfigMap
metadata:
  name: dev-template
  labels: {paddock.dev/vm: dev}
  finalizers: [paddock.dev/owned-by-VM]
  ownerReferences: [{kind: VM, name: dev, uid: gone-uid, controller: true}]
data:
  template: |
    images: [{location: /var/lib/paddock/stale.qcow2, arch: x86_64}]
    user: {name: paddock, uid: 1000}
`
	if out, errOut, code := e.run(left, "apply", "-f", "-"); code != 0 {
		t.Fatalf("apply the leftover: %s %s", out, errOut)
	}
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")
	var cm resource.ConfigMap
	decodeJSON(t, e.mustRun("get", "configmap", "dev-template", "-o", "json"), &cm)
	v := e.vm("dev")
	if ref, _ := cm.Metadata.ControllerOf(); ref.UID != v.Metadata.UID || !strings.Contains(cm.Data["template"], "none.qcow2") {
		t.Fatalf("the copy was not taken over: owner %+v, data %q", ref, cm.Data["template"])
	}
	// Deleting it directly is refused with its owner's name.
	if _, errOut, code := e.run("", "delete", "configmap", "dev-template", "--wait=false"); code != 3 || !strings.Contains(errOut, "owned by VM dev") {
		t.Fatalf("direct delete of the copy: exit %d %q", code, errOut)
	}
	// Editing it is checked by Lima too.
	if _, errOut, code := e.run("", "patch", "configmap", "dev-template", "-p", `{"data":{"template":"cpus: many\n"}}`); code != 3 || !strings.Contains(errOut, "cpus") {
		t.Fatalf("invalid edit of the copy: exit %d %q", code, errOut)
	}
	e.mustRun("vm", "delete", "dev", "--timeout=1m")
	if _, _, code := e.run("", "get", "configmap", "dev-template"); code != 1 {
		t.Fatal("the copy outlived its VM")
	}
}

// A VM keeps its template copy when the ConfigMap it was made from goes.
func TestVMKeepsItsCopyWhenTheSourceIsDeleted(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")
	e.mustRun("delete", "configmap", "debian")
	// A spec change makes the controller look at the VM again.
	e.mustRun("patch", "vm", "dev", "-p", `{"spec":{"running":true}}`)
	e.mustRun("wait", "vm/dev", "--for=condition=Created", "--reason=Created", "--timeout=30s")
	e.mustRun("get", "configmap", resource.TemplateName("dev"))
	e.mustRun("vm", "delete", "dev", "--timeout=1m")
}

// A paddock (and its paddock-lima) without Lima's guest agent beside it
// (a build from source) cannot start a VM, and says how to get the agent.
func TestVMStartWithoutGuestAgentSaysHow(t *testing.T) {
	e := newEnv(t, "default")
	e.bin = filepath.Join(e.home, "bin", "paddock")
	if err := os.MkdirAll(filepath.Dir(e.bin), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"paddock", lima.HelperName} {
		if err := os.Link(filepath.Join(filepath.Dir(paddockBin), name), filepath.Join(filepath.Dir(e.bin), name)); err != nil {
			t.Fatal(err)
		}
	}
	e.serve()
	applyTemplateCM(e, "debian")
	_, errOut, code := e.run("", "vm", "create", "dev", "--template", "debian", "--start", "--timeout=1m")
	if code != 1 || !strings.Contains(errOut, "guest agent lima-guestagent.Linux-x86_64 is missing") || !strings.Contains(errOut, "build-guestagent") {
		t.Fatalf("create --start without a guest agent: exit %d: %s", code, errOut)
	}
}
