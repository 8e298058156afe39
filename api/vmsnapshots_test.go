package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

// The OpenAPI document describes a VM's snapshots as its subresource.
func TestOpenAPIDescribesVMSnapshots(t *testing.T) {
	st := openStore(t)
	doc := api.New(api.Config{Store: st}).OpenAPI()
	base := "/api/v1alpha1/namespaces/{namespace}/vms/{name}/snapshots"
	if p := doc.Paths[base]; p == nil || p.Get == nil || p.Post == nil {
		t.Fatalf("no GET and POST %s in the OpenAPI document", base)
	}
	if p := doc.Paths[base+"/{tag}"]; p == nil || p.Delete == nil {
		t.Fatalf("no DELETE %s/{tag} in the OpenAPI document", base)
	}
	if p := doc.Paths[base+"/{tag}/apply"]; p == nil || p.Post == nil {
		t.Fatalf("no POST %s/{tag}/apply in the OpenAPI document", base)
	}
}

// unaskedSnapshots is a VMSnapshots that fails the test's requests if it
// is asked: it provokes what no real driver can show, that the API
// refuses a request before it reaches the driver.
type unaskedSnapshots struct{}

var errAsked = errors.New("the driver was asked")

func (unaskedSnapshots) ListSnapshots(context.Context, string) ([]resource.VMSnapshot, error) {
	return nil, errAsked
}
func (unaskedSnapshots) CreateSnapshot(context.Context, string, string) error { return errAsked }
func (unaskedSnapshots) ApplySnapshot(context.Context, string, string) error  { return errAsked }
func (unaskedSnapshots) DeleteSnapshot(context.Context, string, string) error { return errAsked }

// A snapshot is not taken, applied or deleted while the VM's controller
// boots or stops its machine, nor for a VM that does not exist or a tag
// that breaks the rule; each answer says why.
func TestSnapshotRequestsRefusedBeforeTheDriver(t *testing.T) {
	ctx := context.Background()
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := api.New(api.Config{Store: st, VMSnapshots: unaskedSnapshots{}}).Handler()
	for _, v := range []struct {
		name    string
		running bool
		cond    *metav1.Condition
	}{
		{"booting", true, &metav1.Condition{Type: resource.VMRunning, Status: metav1.ConditionFalse, Reason: resource.ReasonStarting, Message: "booting"}},
		{"halting", false, &metav1.Condition{Type: resource.VMRunning, Status: metav1.ConditionTrue, Reason: resource.ReasonStarted, Message: "runs"}},
		{"fresh", false, nil},
	} {
		vm := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
			Metadata: resource.ObjectMeta{Name: v.name, Namespace: "default"},
			Spec:     resource.VMSpec{TemplateRef: "t", Running: v.running}}
		obj, err := st.Create(ctx, vm)
		if err != nil {
			t.Fatal(err)
		}
		if v.cond != nil {
			vm = obj.(*resource.VM)
			v.cond.LastTransitionTime = metav1.Now()
			vm.Status.Conditions = []metav1.Condition{*v.cond}
			if _, err := st.UpdateStatus(ctx, vm); err != nil {
				t.Fatal(err)
			}
		}
	}
	vms := "/api/v1alpha1/namespaces/default/vms/"
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{http.MethodPost, vms + "booting/snapshots", `{"tag":"s1"}`, 409, "vm booting is starting: take, apply or delete its snapshots once it runs or has stopped"},
		{http.MethodPost, vms + "booting/snapshots/s1/apply", "", 409, "vm booting is starting"},
		{http.MethodDelete, vms + "halting/snapshots/s1", "", 409, "vm halting is stopping"},
		{http.MethodPost, vms + "fresh/snapshots", `{"tag":"s1"}`, 409, "vm fresh is not created yet, so it has no snapshots: start it once first"},
		{http.MethodGet, vms + "nonesuch/snapshots", "", 404, "nonesuch"},
		{http.MethodPost, vms + "nonesuch/snapshots/s1/apply", "", 404, "nonesuch"},
		{http.MethodPost, vms + "booting/snapshots", `{"tag":"a/b"}`, 422, "body.tag"},
		{http.MethodPost, vms + "booting/snapshots", `{"tag":""}`, 422, "body.tag"},
		{http.MethodPost, vms + "booting/snapshots", `{"tag":"` + strings.Repeat("x", 64) + `"}`, 422, "body.tag"},
		{http.MethodDelete, vms + "booting/snapshots/" + strings.Repeat("x", 64), "", 422, "path.tag"},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%s %s %s: %d %s; want %d and %q", c.method, c.path, c.body, rec.Code, rec.Body, c.code, c.want)
		}
	}
}

// A daemon without a VM driver says so.
func TestSnapshotsWithoutADriver(t *testing.T) {
	st := openStore(t)
	rec := httptest.NewRecorder()
	api.New(api.Config{Store: st}).Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1alpha1/namespaces/default/vms/dev/snapshots", nil))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "runs no VM driver") {
		t.Errorf("GET snapshots without a driver: %d %s", rec.Code, rec.Body)
	}
}
