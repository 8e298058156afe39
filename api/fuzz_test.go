package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2/queryparam"
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
		// Waited actions on a VM that exists (seed 1) that no controller
		// will ever settle: they answer only when the client leaves.
		// Unbounded, such an input hung a CI's fuzzing.
		{"POST", "/api/v1alpha1/namespaces/default/vms/v/start?wait=true&timeout=0", ``},
		{"POST", "/api/v1alpha1/namespaces/default/vms/v/stop?wait=1", ``},
		{"POST", "/api/v1alpha1/app/start?wait=true&timeout=1ms", ``},
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
		// Query parameters are read as the server reads them, which is not
		// always as url.Values would.
		param := func(name string) string { return queryparam.Get(req.URL.RawQuery, name) }
		// A watch streams until the client leaves; only one the server
		// refuses at once (a negative revision) answers.
		if param("watch") != "" && !strings.HasPrefix(param("resourceVersion"), "-") {
			return
		}
		// This server runs no VM driver, and the endpoints that reach a
		// machine say so with a 500; they have tests of their own.
		for _, machine := range []string{"/ssh", "/logs", "/snapshots"} {
			if strings.Contains(req.URL.Path, machine) {
				return
			}
		}
		// A wait (?wait=) answers when what it waits for happens or the
		// client leaves. Every client here leaves after 200 ms (a wait
		// costs the fuzzer that long: a second was most of CI's fuzzing
		// time), and what was answered to nobody is not judged; a wait
		// that reaches its own ?timeout= answers 504, as documented.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req = req.WithContext(ctx)
		ctype := "application/json"
		if method == "PATCH" {
			ctype = "application/merge-patch+json"
		}
		req.Header.Set("Content-Type", ctype)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if ctx.Err() != nil || (rec.Code == http.StatusGatewayTimeout && param("wait") != "") {
			return
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q answered %d: %s", method, path, body, rec.Code, rec.Body)
		}
	})
}
