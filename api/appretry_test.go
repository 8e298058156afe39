package api_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/core/vm/vmtest"
)

// plainTemplate renders every App to one small template.
type plainTemplate struct{}

func (plainTemplate) Render(spec resource.AppSpec) ([]byte, error) {
	return []byte("vmType: test\nengine: " + spec.ContainerEngine.Name + "\n"), nil
}

// answeringEngine is a FAKE of the engine behind its socket, which
// answers at once: the test is about the VM's start.
type answeringEngine struct{}

func (answeringEngine) Ping(_ context.Context, engine string) (string, error) {
	return engine + " answered", nil
}

// serveControllers runs the App and VM controllers, the VMs' on driver d,
// over a new SQLite store until the test ends, and returns the store and
// the API's handler over it.
func serveControllers(t *testing.T, d interface {
	vm.Driver
	vm.Validator
}) (store.Store, http.Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db")), Admit: vm.Admit(d)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	apps := app.New(st, app.Options{Template: plainTemplate{}, Engine: answeringEngine{}})
	vms := vm.New(st, d, vm.Options{StopGrace: time.Second})
	wg.Go(func() { apps.Run(ctx) })
	wg.Go(func() { vms.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait(); st.Close() })
	return st, api.New(api.Config{Store: st}).Handler()
}

// A start that failed is tried again by the next start, as a user who
// fixed its cause expects, for the App and for a VM alike: the
// controllers retry a failed start only on a change, and a start of what
// already should run changes nothing. Before, the second 'paddock start'
// answered the first one's failure at once.
func TestStartAgainRetriesAFailedStart(t *testing.T) {
	d := vmtest.NewFakeDriver()
	st, h := serveControllers(t, d)
	ctx := t.Context()

	d.Fail(vmtest.Boot, resource.AppVMName, errors.New("the guest agent is missing"))
	code, a, body := post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=30s")
	if c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); code != http.StatusOK || c == nil || c.Reason != resource.ReasonStartFailed {
		t.Fatalf("the first start: %d %s", code, body)
	}
	code, a, body = post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=30s")
	if c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); code != http.StatusOK || c == nil || c.Status != "True" {
		t.Fatalf("the start after the cause was gone: %d %s", code, body)
	}

	// The same for a VM of its own, through 'vm start'.
	tmpl := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: "plain", Namespace: "default"}, Data: map[string]string{resource.TemplateKey: "vmType: test\n"}}
	if _, err := st.Create(ctx, tmpl); err != nil {
		t.Fatal(err)
	}
	d.Fail(vmtest.Boot, "plain", errors.New("no memory"))
	if _, err := st.Create(ctx, &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "plain", Namespace: "default"}, Spec: resource.VMSpec{TemplateRef: "plain"}}); err != nil {
		t.Fatal(err)
	}
	vmStart := "/api/v1alpha1/namespaces/default/vms/plain/start?wait=true&timeout=30s"
	if code, _, body := post(t, h, vmStart); code != http.StatusOK || !strings.Contains(body, "no memory") {
		t.Fatalf("the VM's first start: %d %s", code, body)
	}
	code, vm, body := postVM(t, h, vmStart)
	if c := meta.FindStatusCondition(vm.Status.Conditions, resource.VMRunning); code != http.StatusOK || c == nil || c.Status != "True" || !slices.Contains(resource.VMStartedReasons, c.Reason) {
		t.Fatalf("the VM's start after the cause was gone: %d %s", code, body)
	}
}
