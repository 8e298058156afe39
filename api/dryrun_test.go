package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/resource"
)

// Every write takes ?dryRun=All: it is checked and answered as it would
// be, and nothing is stored.
func TestDryRunChecksWritesAndStoresNothing(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()
	send := func(method, path, contentType, body string) (int, string) {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	const (
		app = "/api/v1alpha1/app"
		cms = "/api/v1alpha1/namespaces/default/configmaps"
		cm  = `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"k":"v"}}`
		mp  = "application/merge-patch+json"
	)
	if code, body := send("POST", cms+"?dryRun=All", "application/json", cm); code != http.StatusCreated || !strings.Contains(body, `"name":"demo"`) {
		t.Fatalf("dry create: %d %s", code, body)
	}
	if code, _ := send("GET", cms+"/demo", "", ""); code != http.StatusNotFound {
		t.Fatalf("a dry create was stored: %d", code)
	}
	if code, body := send("POST", cms+"?dryRun=Yes", "application/json", cm); code != http.StatusUnprocessableEntity || !strings.Contains(body, "All") {
		t.Fatalf("dryRun=Yes: %d %s", code, body)
	}
	if code, body := send("POST", app+"/start", "", ""); code != http.StatusOK {
		t.Fatalf("start: %d %s", code, body)
	}
	// The App's sizes are checked against the host's, as a real write is.
	tooMany := fmt.Sprintf(`{"spec":{"cpus":%d}}`, runtime.NumCPU()+1)
	if code, body := send("PATCH", app+"?dryRun=All", mp, tooMany); code != http.StatusUnprocessableEntity || !strings.Contains(body, "the host's CPU count") {
		t.Fatalf("dry patch beyond the host: %d %s", code, body)
	}
	if code, body := send("PATCH", app+"?dryRun=All", mp, `{"spec":{"cpus":1,"running":false}}`); code != http.StatusOK || !strings.Contains(body, `"cpus":1`) {
		t.Fatalf("dry patch: %d %s", code, body)
	}
	if code, body := send("DELETE", app+"?dryRun=All", "", ""); code != http.StatusOK {
		t.Fatalf("dry delete: %d %s", code, body)
	}
	obj, err := st.Get(context.Background(), resource.Key{Kind: "App", Name: "app"})
	if err != nil || !obj.(*resource.App).Spec.Running || obj.GetMeta().Terminating() || obj.GetMeta().Generation != 1 {
		t.Fatalf("dry writes changed the App: %v %+v", err, obj)
	}
	// The OpenAPI document names the parameter on writes.
	if code, body := send("GET", "/openapi.json", "", ""); code != http.StatusOK || !strings.Contains(body, `"name":"dryRun"`) {
		t.Fatalf("openapi.json has no dryRun: %d", code)
	}
}
