package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

// The OpenAPI document describes how to reach a VM: its ssh parameters and
// its logs, with the streams a client may ask for.
func TestOpenAPIDescribesVMAccess(t *testing.T) {
	st := openStore(t)
	doc := api.New(api.Config{Store: st}).OpenAPI()
	ssh := doc.Paths["/api/v1alpha1/namespaces/{namespace}/vms/{name}/ssh"]
	if ssh == nil || ssh.Get == nil {
		t.Fatal("no GET .../vms/{name}/ssh in the OpenAPI document")
	}
	logs := doc.Paths["/api/v1alpha1/namespaces/{namespace}/vms/{name}/logs"]
	if logs == nil || logs.Get == nil {
		t.Fatal("no GET .../vms/{name}/logs in the OpenAPI document")
	}
	params := map[string][]any{}
	for _, p := range logs.Get.Parameters {
		if p.Schema != nil {
			params[p.Name] = p.Schema.Enum
		}
	}
	if enum, ok := params["stream"]; !ok || len(enum) != 3 {
		t.Errorf("the logs' stream parameter is %v, want stderr, stdout and serial", enum)
	}
	if _, ok := params["follow"]; !ok {
		t.Error("the logs endpoint has no follow parameter")
	}
	if _, ok := logs.Get.Responses["200"].Content["text/plain"]; !ok {
		t.Error("the logs endpoint does not say it answers text/plain")
	}
}

// noAccess is a VMAccess for VMs that never run: the API must answer
// before it asks.
type noAccess struct{}

func (noAccess) SSH(string) (resource.VMSSH, error) { return resource.VMSSH{}, errors.New("asked") }
func (noAccess) LogPath(string, resource.VMLogStream) (string, error) {
	return "", errors.New("asked")
}

// A VM that does not run says how to start it: the App's through the App.
func TestSSHToAStoppedVMSaysHowToStartIt(t *testing.T) {
	ctx := context.Background()
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := api.New(api.Config{Store: st, VMAccess: noAccess{}}).Handler()
	for _, v := range []struct {
		ns, name string
		owner    []resource.OwnerReference
		want     string
	}{
		{"default", "dev", nil, "vm dev is not running: start it with 'paddock vm start dev'"},
		{"team", "web", nil, "vm web is not running: start it with 'paddock vm start -n team web'"},
		{"paddock", "app", []resource.OwnerReference{{Kind: "App", Name: "app", UID: "u", Controller: true}}, "the App's vm app is not running: start the App with 'paddock start'"},
	} {
		vm := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
			Metadata: resource.ObjectMeta{Name: v.name, Namespace: v.ns, OwnerReferences: v.owner},
			Spec:     resource.VMSpec{TemplateRef: "t"}}
		if _, err := st.Create(ctx, vm); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1alpha1/namespaces/"+v.ns+"/vms/"+v.name+"/ssh", nil))
		if rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), v.want) {
			t.Errorf("ssh to %s/%s: %d %s; want 409 and %q", v.ns, v.name, rec.Code, rec.Body, v.want)
		}
	}
}
