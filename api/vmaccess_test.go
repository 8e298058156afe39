package api_test

import (
	"context"
	"path/filepath"
	"testing"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/store/gormstore"
)

// The OpenAPI document describes how to reach a VM: its ssh parameters and
// its logs, with the streams a client may ask for.
func TestOpenAPIDescribesVMAccess(t *testing.T) {
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(filepath.Join(t.TempDir(), "db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
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
