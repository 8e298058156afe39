package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"paddock.dev/paddock/core/store/gormstore"
)

// send sends a request to s and returns its status and body.
func (s *socketServer) send(t *testing.T, method, path, contentType, body string) (int, string) {
	t.Helper()
	status, data, _ := s.sendWithHeaders(t, method, path, contentType, body)
	return status, data
}

// sendRoot sends a GET of path, outside the API's version prefix.
func (s *socketServer) sendRoot(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := s.client.Get("http://paddock" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// sendWithHeaders is send that returns the answer's headers too.
func (s *socketServer) sendWithHeaders(t *testing.T, method, path, contentType, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, "http://paddock/api/v1alpha1"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header
}

// Values at the edge of what a field takes are refused with the field and
// the way out, never stored as something else or called by the wrong name.
func TestValuesAtTheEdgeAreRefused(t *testing.T) {
	s := serveSocket(t, gormstore.Config{})
	if status, body := s.send(t, "POST", "/app", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"App","metadata":{"name":"app"},"spec":{"cpus":1}}`); status != 201 {
		t.Fatalf("create the App: %d %s", status, body)
	}
	for _, c := range []struct {
		name, method, path, ctype, body string
		want                            []string // in the problem's body
	}{
		// It was answered 200 and stored as the default, 2.
		{"cpus 0 in a merge patch", "PATCH", "/app", "application/merge-patch+json", `{"spec":{"cpus":0}}`,
			[]string{`"location":"body.spec.cpus"`, "send null for the default"}},
		// Both were "not a size".
		{"memory of 1EiB", "PATCH", "/app", "application/merge-patch+json", `{"spec":{"memory":"1EiB"}}`,
			[]string{`"location":"body.spec.memory"`, `\"1EiB\" is too large: sizes go up to 1PiB`}},
		{"disk of 16EiB", "PATCH", "/app", "application/merge-patch+json", `{"spec":{"disk":"16EiB"}}`,
			[]string{`"location":"body.spec.disk"`, `\"16EiB\" is too large: sizes go up to 1PiB`}},
		{"VM memory of 1EiB", "POST", "/namespaces/default/vms", "application/json",
			`{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"v"},"spec":{"templateRef":"t","params":{"memory":"1EiB"}}}`,
			[]string{`"location":"body.spec.params.memory"`, "too large: sizes go up to 1PiB"}},
		// It was told to send the body to the Foo path, which does not exist.
		{"an unknown kind", "POST", "/namespaces/default/configmaps", "application/json",
			`{"apiVersion":"paddock.dev/v1alpha1","kind":"Foo","metadata":{"name":"f"}}`,
			[]string{`the body's kind \"Foo\" is not a kind`, "the kinds are App, ConfigMap, VM"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := s.send(t, c.method, c.path, c.ctype, c.body)
			if status != 422 {
				t.Fatalf("answered %d %s, want 422", status, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Fatalf("the problem %s does not say %s", body, w)
				}
			}
		})
	}
	_, body := s.send(t, "GET", "/app", "", "")
	var app struct {
		Spec struct {
			CPUs int `json:"cpus"`
		} `json:"spec"`
	}
	if json.Unmarshal([]byte(body), &app); app.Spec.CPUs != 1 {
		t.Fatalf("the App's cpus are %d after the refused patches, want 1: %s", app.Spec.CPUs, body)
	}
	// null asks for the default.
	if status, body := s.send(t, "PATCH", "/app", "application/merge-patch+json", `{"spec":{"cpus":null}}`); status != 200 {
		t.Fatalf("cpus null: %d %s", status, body)
	}
}
