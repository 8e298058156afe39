package cli

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Requests a hostile or careless script sends: each answers a 4xx
// problem+json with a sentence, never a 500, an empty body or text/plain.
func TestBadRequestsAnswerProblems(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	const base = "http://paddock/api/v1alpha1"
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"}}`)
	if status, got, _ := call(t, d.http, "POST", base+"/app", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"App","metadata":{"name":"app"}}`); status != 201 {
		t.Fatalf("create the App: %d %v", status, got)
	}

	// Bodies that fit every kind's schema, so that only their kind is wrong.
	bodies := map[string]string{}
	for _, kind := range []string{"App", "VM", "ConfigMap"} {
		bodies[kind] = `{"apiVersion":"paddock.dev/v1alpha1","kind":"` + kind + `","metadata":{"name":"demo"}}`
	}
	paths := map[string][]string{ // kind: its POST path, its PUT paths
		"App":       {base + "/app", base + "/app", base + "/app/status"},
		"VM":        {base + "/namespaces/default/vms", base + "/namespaces/default/vms/demo", base + "/namespaces/default/vms/demo/status"},
		"ConfigMap": {cmPath, cmPath + "/demo"},
	}
	for pathKind, ps := range paths {
		for bodyKind, body := range bodies {
			if bodyKind == pathKind {
				continue
			}
			for i, p := range ps {
				method := "PUT"
				if i == 0 {
					method = "POST"
				}
				t.Run(method+" "+bodyKind+" to "+p, func(t *testing.T) {
					status, got, hdr := call(t, d.http, method, p, "application/json", body)
					if status != 422 || got["reason"] != "Invalid" || hdr.Get("Content-Type") != "application/problem+json" {
						t.Fatalf("got %d %v, want 422 Invalid", status, got)
					}
					if !strings.Contains(fmt.Sprint(got["errors"]), "body.kind") {
						t.Fatalf("the problem does not name kind: %v", got)
					}
				})
			}
		}
	}

	for _, c := range []struct {
		name, method, url, ctype, body string
		status                         int
	}{
		{"unknown path", "GET", base + "/nothing-here", "", "", 404},
		{"unknown method", "TRACE", cmPath, "", "", 405},
		{"malformed escape", "GET", cmPath + "?labelSelector=a%3Db%ZZ", "", "", 400},
		{"condition without type", "PATCH", base + "/app/status", "application/merge-patch+json", `{"status":{"conditions":[{"type":"","status":"True","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`, 422},
		{"condition status", "PATCH", base + "/app/status", "application/merge-patch+json", `{"status":{"conditions":[{"type":"Running","status":"Maybe","reason":"R","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`, 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, got, hdr := call(t, d.http, c.method, c.url, c.ctype, c.body)
			if status != c.status || hdr.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("got %d %q %v, want %d problem+json", status, hdr.Get("Content-Type"), got, c.status)
			}
			if detail, _ := got["detail"].(string); len(detail) < 10 {
				t.Fatalf("no sentence: %v", got)
			}
			if hdr.Get("X-Request-Id") == "" {
				t.Fatal("no request id on the answer")
			}
		})
	}
}

// Over TCP the bearer scheme is case-insensitive, and a refused request's
// connection is closed so that it cannot be held open without the token.
func TestTCPBearerSchemeAndRefusedConnections(t *testing.T) {
	e := newEnv(t, "default")
	port := freePort(t)
	e.serve("--listen", fmt.Sprintf("tcp://127.0.0.1:%d", port))
	data, err := os.ReadFile(e.path("token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(data))
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1alpha1/configmaps", port)
	get := func(auth string) *http.Response {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := get("bearer " + token); r.StatusCode != 200 {
		t.Fatalf("lower-case scheme: %d, want 200", r.StatusCode)
	}
	if r := get("Basic " + token); r.StatusCode != 401 || !r.Close {
		t.Fatalf("wrong scheme: %d (close %v), want 401 and the connection closed", r.StatusCode, r.Close)
	}
}

// A watch delivers every object however many there are (it once answered
// an empty 200 past 10,000), with event ids that only increase.
func TestWatchPastTenThousandOverTheSocket(t *testing.T) {
	e := newEnv(t, "default")
	const n = 10_001
	fill(t, e.path("db"), n)
	d := e.serve()
	resp, err := d.http.Get("http://paddock/api/v1alpha1/configmaps?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	added, last := 0, int64(-1)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			rev, err := strconv.ParseInt(id, 10, 64)
			if err != nil || rev < last {
				t.Fatalf("event id %q after %d: ids must not go backwards", id, last)
			}
			last = rev
		}
		if strings.Contains(line, `"type":"ADDED"`) {
			added++
		}
		if strings.Contains(line, `"type":"BOOKMARK"`) {
			break
		}
	}
	if added != n {
		t.Fatalf("the watch delivered %d objects before its bookmark, want %d", added, n)
	}
}
