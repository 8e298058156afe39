package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
		{"negative cpus", "POST", base + "/namespaces/default/vms", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"v"},"spec":{"templateRef":"t","params":{"cpus":-1}}}`, 422},
		{"cpus past the host's", "POST", base + "/namespaces/default/vms", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"v"},"spec":{"templateRef":"t","params":{"cpus":` + strconv.Itoa(runtime.NumCPU()+1) + `}}}`, 422},
		{"memory past int64", "POST", base + "/namespaces/default/vms", "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"VM","metadata":{"name":"v"},"spec":{"templateRef":"t","params":{"memory":"99999999999999999999GiB"}}}`, 422},
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

// SIGTERM lets a running write finish and answer, ends watches with an
// event that says to resume, and exits 0.
func TestSIGTERMLetsRunningWritesFinish(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"w"}}`)
	watch, err := d.http.Get(cmPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()

	// A PATCH whose body is still on its way when SIGTERM comes.
	conn, err := net.Dial("unix", e.path("socket"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"data":{"during":"shutdown"}}`
	fmt.Fprintf(conn, "PATCH /api/v1alpha1/namespaces/default/configmaps/w HTTP/1.1\r\nHost: paddock\r\nContent-Type: application/merge-patch+json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5])
	time.Sleep(200 * time.Millisecond)
	d.cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(300 * time.Millisecond)
	fmt.Fprint(conn, body[5:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the write in flight at SIGTERM got no answer: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("the write in flight at SIGTERM answered %d: %s", resp.StatusCode, data)
	}

	events, _ := io.ReadAll(watch.Body)
	if !strings.Contains(string(events), `"type":"ERROR"`) {
		t.Fatalf("the watch ended without an ERROR event: %s", events)
	}
	select {
	case <-d.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit after SIGTERM: %s", d.log)
	}
	if code := d.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d: %s", code, d.log)
	}
	d = e.serve()
	if _, got, _ := call(t, d.http, "GET", cmPath+"/w", "", ""); fmt.Sprint(got["data"]) != "map[during:shutdown]" {
		t.Fatalf("the write answered 200 but is not stored: %v", got)
	}
}

// Every write the daemon acknowledged survives a kill -9: the daemon that
// starts next serves it, from the index it rebuilds and the file.
func TestAcknowledgedWritesSurviveKill(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	const writers = 4
	for i := range writers {
		call(t, d.http, "POST", cmPath, "application/json",
			fmt.Sprintf(`{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"k%d"}}`, i))
	}
	acked := make([]int, writers) // the last value each writer saw acknowledged
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			c := unixClient(e.path("socket"))
			for n := 1; ; n++ {
				resp, err := c.Do(mergePatch(fmt.Sprintf("%s/k%d", cmPath, i), fmt.Sprintf(`{"data":{"n":"%d"}}`, n)))
				if err != nil {
					return // the daemon is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return
				}
				acked[i] = n
			}
		})
	}
	time.Sleep(time.Second)
	d.cmd.Process.Kill()
	<-d.exited
	wg.Wait()
	t.Logf("acknowledged before the kill: %v", acked)

	d = e.serve()
	for i := range writers {
		_, got, _ := call(t, d.http, "GET", fmt.Sprintf("%s/k%d", cmPath, i), "", "")
		data, _ := got["data"].(map[string]any)
		n, _ := strconv.Atoi(fmt.Sprint(data["n"]))
		if acked[i] == 0 || n < acked[i] {
			t.Fatalf("k%d holds n=%v after kill -9, but %d was acknowledged", i, data["n"], acked[i])
		}
	}
}

// A body that trickles in is cut off with 408, PATCH and POST alike.
func TestSlowBodyAnswers408(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"w"}}`)
	socket := e.path("socket")
	for _, method := range []string{"PATCH", "POST"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			path, ctype := cmPath[len("http://paddock"):], "application/json"
			if method == "PATCH" {
				path, ctype = path+"/w", "application/merge-patch+json"
			}
			fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: paddock\r\nContent-Type: %s\r\nContent-Length: 1000\r\n\r\n{", method, path, ctype)
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer to a body that never comes: %v", err)
			}
			if resp.StatusCode != 408 || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("got %d %s, want 408 problem+json", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})
	}
}

// Unauthenticated TCP clients, more than the listener takes at once, are
// answered 401 and disconnected, and the owner's socket stays responsive.
func TestUnauthenticatedTCPConnectionsAreClosed(t *testing.T) {
	e := newEnv(t, "default")
	port := freePort(t)
	d := e.serve("--listen", fmt.Sprintf("tcp://127.0.0.1:%d", port))
	const n = 400
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		fmt.Fprint(c, "GET /api/v1alpha1/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		conns = append(conns, c)
	}
	t0 := time.Now()
	if status, _, _ := call(t, d.http, "GET", cmPath, "", ""); status != 200 {
		t.Fatalf("the owner's request: %d", status)
	}
	t.Logf("the owner's request beside %d unauthenticated connections took %v", n, time.Since(t0))
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: no answer: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != 401 {
			t.Fatalf("connection %d: %d, want 401", i, resp.StatusCode)
		}
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("connection %d: still open after its 401 (%v)", i, err)
		}
	}
}

// The database and the directory it is in are the user's alone, and a
// second daemon on the same database is refused with the holder's pid.
func TestDatabaseIsPrivateAndLocked(t *testing.T) {
	a := newEnv(t, "default")
	d := a.serve()
	call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"x"}}`)
	db := a.path("db")
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{db, 0o600}, {db + "-wal", 0o600}, {filepath.Dir(db), 0o700}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.mode {
			t.Errorf("%s has mode %o, want %o", c.path, fi.Mode().Perm(), c.mode)
		}
	}

	b := newEnv(t, "other")
	_, errOut, code := b.run("", "serve", "--database", db)
	want := fmt.Sprintf("in use by another paddock daemon (pid %d)", d.cmd.Process.Pid)
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, db) {
		t.Fatalf("a second daemon on the same database: exit %d, %q; want it refused, naming the file and saying %q", code, errOut, want)
	}
}

// A database with garbage in the middle is found at start, and the
// message names the file and the way out.
func TestDamagedDatabaseIsNamedAtStart(t *testing.T) {
	e := newEnv(t, "default")
	db := e.path("db")
	fill(t, db, 3000)
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	garbage := make([]byte, 256<<10)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(garbage, fi.Size()/2-int64(len(garbage))/2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, errOut, code := e.run("", "serve")
	if code != 1 || !strings.Contains(errOut, db) || !strings.Contains(errOut, "damaged") || !strings.Contains(errOut, "backup") {
		t.Fatalf("a damaged database: exit %d, %q; want it refused, naming the file and what to do", code, errOut)
	}
}

// Large objects written and deleted give their space back: the event log
// is bounded in bytes (64 MiB), and the file is vacuumed as it is trimmed.
func TestDeletedObjectsSpaceReturns(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	const n = 90
	body := func(i int) string {
		return `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"big-` + strconv.Itoa(i) +
			`"},"data":{"k":"` + strings.Repeat("x", 900<<10) + `"}}`
	}
	parallel(t, n, func(i int) {
		if status, err := send(d.http, "POST", cmPath, body(i)); status != 201 {
			t.Errorf("create %d: %d %v", i, status, err)
		}
	})
	peak := dbSize(t, e.path("db"))
	parallel(t, n, func(i int) {
		if status, err := send(d.http, "DELETE", cmPath+"/big-"+strconv.Itoa(i), ""); status != 200 {
			t.Errorf("delete %d: %d %v", i, status, err)
		}
	})
	after := dbSize(t, e.path("db"))
	t.Logf("database with its log: %d MiB holding %d objects of 900 KiB, %d MiB after they were deleted", peak>>20, n, after>>20)
	if after > peak*3/5 {
		t.Fatalf("the database kept the deleted objects' space: %d bytes at the peak, %d after", peak, after)
	}
}

// send sends a request with a JSON body, if any, and returns its status;
// unlike call it may run on any goroutine.
func send(c *http.Client, method, url, body string) (int, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// parallel runs f(0..n-1) on four goroutines.
func parallel(t *testing.T, n int, f func(i int)) {
	next := make(chan int)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	for range 4 {
		<-done
	}
}

// dbSize is the bytes of the SQLite file at path and its write-ahead log,
// which a closed database has none of.
func dbSize(t testing.TB, path string) int64 {
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(path + suffix)
		if suffix != "" && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	return total
}

// A log line about a request carries the request's id, as its answer's
// X-Request-Id header does: here the line about a watch the daemon ends
// as it stops.
func TestRequestLogLinesCarryTheRequestID(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve("--log-level", "debug")
	resp, err := d.http.Get(cmPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	resp.Body.Read(make([]byte, 1))
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d: %s", code, d.log)
	}
	for _, line := range strings.Split(d.log.String(), "\n") {
		if strings.Contains(line, "watch stream ended") {
			if id == "" || !strings.Contains(line, "request="+id) {
				t.Fatalf("the line about watch %s lacks its id: %s", id, line)
			}
			return
		}
	}
	t.Fatalf("no line about the ended watch: %s", d.log)
}
