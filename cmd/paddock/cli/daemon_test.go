package cli

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

const cmPath = "http://paddock/api/v1alpha1/namespaces/default/configmaps"

func TestDaemonServesTheAPIOnAPrivateSocket(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()

	fi, err := os.Stat(e.path("socket"))
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Fatalf("socket mode %o, want 600", mode)
	}

	status, body, hdr := call(t, d.http, "POST", cmPath, "application/json",
		`{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"k":"v"}}`)
	if status != 201 || body["metadata"].(map[string]any)["uid"] == "" {
		t.Fatalf("create: %d %v", status, body)
	}
	if hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("the API must not send CORS headers")
	}

	for _, c := range []struct {
		name, method, url, ctype, body string
		status                         int
		reason                         string
	}{
		{"duplicate", "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"}}`, 409, "AlreadyExists"},
		{"missing", "GET", cmPath + "/nope", "", "", 404, "NotFound"},
		{"stale", "PATCH", cmPath + "/demo", "application/merge-patch+json", `{"metadata":{"resourceVersion":"999"},"data":{"k":"x"}}`, 409, "Conflict"},
		{"unknown field", "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"x"},"dta":{}}`, 422, "Invalid"},
		{"bad name", "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"Not_Valid"}}`, 422, "Invalid"},
		{"patch type", "PATCH", cmPath + "/demo", "application/json", `{"data":{}}`, 415, "UnsupportedMediaType"},
		{"not json", "POST", cmPath, "application/json", `{"apiVersion":`, 400, "BadRequest"},
		{"too large", "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`, 413, "RequestEntityTooLarge"},
		{"bad selector", "GET", cmPath + "?labelSelector=a+in+(", "", "", 400, "BadRequest"},
		{"gone", "GET", cmPath + "?watch=true&resourceVersion=999", "", "", 410, "Gone"},
		{"vm template", "POST", "http://paddock/api/v1alpha1/namespaces/default/vms", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"dev"},"spec":{}}`, 422, "Invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, hdr := call(t, d.http, c.method, c.url, c.ctype, c.body)
			if status != c.status || body["reason"] != c.reason {
				t.Fatalf("got %d %v, want %d %s", status, body, c.status, c.reason)
			}
			if ct := hdr.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("error content type %q", ct)
			}
			if detail, _ := body["detail"].(string); len(detail) < 10 {
				t.Fatalf("error without a sentence: %v", body)
			}
		})
	}

	status, body, _ = call(t, d.http, "GET", "http://paddock/openapi.json", "", "")
	paths, _ := body["paths"].(map[string]any)
	if status != 200 || paths["/api/v1alpha1/namespaces/{namespace}/vms/{name}/status"] == nil || paths["/api/v1alpha1/app"] == nil {
		t.Fatalf("openapi.json lacks the resource paths: %d", status)
	}
	status, body, _ = call(t, d.http, "GET", "http://paddock/version", "", "")
	if status != 200 || body["version"] == "" {
		t.Fatalf("version: %d %v", status, body)
	}
}

func TestWatchStreamsServerSentEvents(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"one"}}`)

	resp, err := d.http.Get(cmPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var ev strings.Builder
		for sc.Scan() {
			if sc.Text() == "" {
				events <- ev.String()
				ev.Reset()
				continue
			}
			ev.WriteString(sc.Text() + "\n")
		}
		close(events)
	}()
	next := func() string {
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event")
		}
		return ""
	}
	if ev := next(); !strings.Contains(ev, `"type":"ADDED"`) || !strings.Contains(ev, `"name":"one"`) || !strings.HasPrefix(ev, "id: 1\n") {
		t.Fatalf("first event %q", ev)
	}
	if ev := next(); !strings.Contains(ev, `"type":"BOOKMARK"`) {
		t.Fatalf("second event %q", ev)
	}
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"two"}}`)
	if ev := next(); !strings.HasPrefix(ev, "id: 2\n") || !strings.Contains(ev, `"name":"two"`) {
		t.Fatalf("live event %q", ev)
	}

	// A client that lost the stream resumes after the last id it saw.
	req, _ := http.NewRequest("GET", cmPath+"?watch=true", nil)
	req.Header.Set("Last-Event-ID", "1")
	resumed, err := d.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Body.Close()
	sc := bufio.NewScanner(resumed.Body)
	sc.Scan()
	if line := sc.Text(); line != "id: 2" {
		t.Fatalf("resumed stream starts with %q, want the event after revision 1", line)
	}
}

func TestShutdownIsGracefulAndDataSurvives(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"keep"},"data":{"k":"v"}}`)
	watch, err := d.http.Get(cmPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()

	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit code %d after SIGTERM: %s", code, d.log)
	}
	if !strings.Contains(d.log.String(), "shutdown complete") {
		t.Fatalf("no clean shutdown in the log: %s", d.log)
	}
	for _, key := range []string{"socket", "pid_file"} {
		if _, err := os.Stat(e.path(key)); !os.IsNotExist(err) {
			t.Errorf("%s left behind after shutdown", key)
		}
	}

	d = e.serve()
	status, body, _ := call(t, d.http, "GET", cmPath+"/keep", "", "")
	if status != 200 || body["data"].(map[string]any)["k"] != "v" {
		t.Fatalf("after restart: %d %v", status, body)
	}
	if code := d.stop(t, syscall.SIGINT); code != 0 {
		t.Fatalf("exit code %d after SIGINT", code)
	}
}

func TestSecondDaemonIsRefused(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	_, errOut, code := e.run("", "serve")
	if code != 1 || !strings.Contains(errOut, "already serving instance") || !strings.Contains(errOut, "pid ") {
		t.Fatalf("second daemon: exit %d, %q", code, errOut)
	}
}

func TestTwoInstancesSideBySide(t *testing.T) {
	a := newEnv(t, "default")
	b := &env{t: t, home: a.home, instance: "second"}
	da, db := a.serve(), b.serve()
	if a.path("socket") == b.path("socket") || a.path("api_port") == b.path("api_port") {
		t.Fatal("two instances share a socket or a port")
	}
	call(t, da.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"only-in-a"}}`)
	if status, _, _ := call(t, db.http, "GET", cmPath+"/only-in-a", "", ""); status != 404 {
		t.Fatalf("instance b sees instance a's object: %d", status)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestTCPNeedsTokenAndLoopbackHost(t *testing.T) {
	e := newEnv(t, "default")
	port := freePort(t)
	e.serve("--listen", fmt.Sprintf("tcp://127.0.0.1:%d", port))
	tokenFile := e.path("token")
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v", err, fi.Mode())
	}
	data, _ := os.ReadFile(tokenFile)
	token := strings.TrimSpace(string(data))
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1alpha1/configmaps", port)

	get := func(host, auth string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", url, nil)
		if host != "" {
			req.Host = host
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if s, _ := get("", ""); s != 401 {
		t.Fatalf("no token: %d, want 401", s)
	}
	if s, _ := get("", "Bearer wrong"); s != 401 {
		t.Fatalf("wrong token: %d, want 401", s)
	}
	if s, _ := get("evil.example:80", "Bearer "+token); s != 403 {
		t.Fatalf("foreign Host: %d, want 403", s)
	}
	if s, _ := get("", "Bearer "+token); s != 200 {
		t.Fatalf("with token: %d, want 200", s)
	}

	_, errOut, code := newEnv(t, "other").run("", "serve", "--listen", "tcp://0.0.0.0:1234")
	if code != 2 || !strings.Contains(errOut, "loopback") {
		t.Fatalf("non-loopback listen: exit %d %q", code, errOut)
	}
}
