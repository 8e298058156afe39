package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestDecoding sends arbitrary bodies to the write endpoints: every
// answer must be a success or a 4xx problem, never a 5xx or a panic.
func FuzzRequestDecoding(f *testing.F) {
	seeds := []struct{ method, path, body string }{
		{"POST", "/api/v1alpha1/namespaces/default/configmaps", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`},
		{"POST", "/api/v1alpha1/namespaces/default/vms", `{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"v"},"spec":{"templateRef":"t","params":{"cpus":2}}}`},
		{"POST", "/api/v1alpha1/app", `{"apiVersion":"paddock.dev/v1alpha1","kind":"App","metadata":{"name":"app"},"spec":{"cpus":-1}}`},
		{"PUT", "/api/v1alpha1/namespaces/default/configmaps/a", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"b"}}`},
		{"PATCH", "/api/v1alpha1/namespaces/default/configmaps/a", `{"metadata":{"finalizers":["x/y"]}}`},
		{"PATCH", "/api/v1alpha1/namespaces/default/vms/v/status", `{"status":{"conditions":[{"type":1}]}}`},
		{"DELETE", "/api/v1alpha1/namespaces/default/configmaps/a?resourceVersion=x", ``},
		{"POST", "/api/v1alpha1/namespaces/default/configmaps", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"a","labels":{"-":"\u0000"}}}`},
		{"POST", "/api/v1alpha1/namespaces/default/configmaps", `[]`},
		{"POST", "/api/v1alpha1/namespaces/default/configmaps", `{"metadata":null}`},
		{"GET", "/api/v1alpha1/vms?watch=true&resourceVersion=-1", ``},
		{"GET", "/api/v1alpha1/vms?fieldSelector=spec.x%3Dy", ``},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.body)
	}
	// Every kind's body on every kind's write paths: a body of one kind on
	// another's path once panicked the handler.
	writes := []struct{ method, path string }{
		{"POST", "/api/v1alpha1/app"}, {"PUT", "/api/v1alpha1/app"}, {"PUT", "/api/v1alpha1/app/status"},
		{"POST", "/api/v1alpha1/namespaces/default/vms"}, {"PUT", "/api/v1alpha1/namespaces/default/vms/demo"},
		{"PUT", "/api/v1alpha1/namespaces/default/vms/demo/status"},
		{"POST", "/api/v1alpha1/namespaces/default/configmaps"}, {"PUT", "/api/v1alpha1/namespaces/default/configmaps/demo"},
	}
	for _, kind := range []string{"App", "VM", "ConfigMap", "", "Nope"} {
		for _, w := range writes {
			f.Add(w.method, w.path, `{"apiVersion":"paddock.dev/v1alpha1","kind":"`+kind+`","metadata":{"name":"demo"}}`)
		}
	}
	srv := newServer(f)
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if !strings.HasPrefix(path, "/") {
			return
		}
		req, err := http.NewRequest(method, path, strings.NewReader(body))
		if err != nil {
			return
		}
		// A watch streams until the client leaves; only one the server
		// refuses at once (a negative revision) answers.
		if q := req.URL.Query(); q.Has("watch") && !strings.HasPrefix(q.Get("resourceVersion"), "-") {
			return
		}
		ctype := "application/json"
		if method == "PATCH" {
			ctype = "application/merge-patch+json"
		}
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q answered %d: %s", method, path, body, rec.Code, rec.Body)
		}
	})
}
