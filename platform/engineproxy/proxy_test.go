package engineproxy

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
)

// shortDir is a directory short enough for socket paths.
func shortDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "pep")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// engine is a dockerd-like server on a Unix socket: the parts of Docker's
// API whose streams the proxy must pass unchanged.
type engine struct {
	socket  string
	creates atomic.Value // the last create's body
}

func startEngine(t testing.TB, socket string) *engine {
	e := &engine{socket: socket}
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/_ping", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		w.Header().Set("Server", "Docker/20.10.24+dfsg1 (linux)")
		io.WriteString(w, "OK")
	})
	mux.HandleFunc("POST /v1.41/containers/create", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.creates.Store(string(body))
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"Id":"c1","Warnings":[]}`)
	})
	// attach and BuildKit's session: dockerd's hijack, 101 UPGRADED, then
	// each line of input echoed, and after the client's half close a last
	// line (output that follows the end of input must still arrive).
	upgrade := func(w http.ResponseWriter, r *http.Request) {
		proto := r.Header.Get("Upgrade")
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(rw, "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", proto)
		rw.Flush()
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				break
			}
			rw.WriteString("echo " + line)
			rw.Flush()
		}
		rw.WriteString("input ended\n")
		rw.Flush()
	}
	mux.HandleFunc("POST /v1.41/containers/c1/attach", upgrade)
	mux.HandleFunc("POST /session", upgrade)
	// events: one every 20 ms, each flushed, until the client leaves.
	mux.HandleFunc("GET /v1.41/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, `{"status":"event %d"}`+"\n", i); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	// load and cp's PUT: the body's size and digest; cp's GET: N bytes.
	sum := func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, `{"stream":"%d %x"}`, n, h.Sum(nil))
	}
	mux.HandleFunc("POST /v1.41/images/load", sum)
	mux.HandleFunc("PUT /v1.41/containers/c1/archive", sum)
	mux.HandleFunc("GET /v1.41/containers/c1/archive", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		w.Header().Set("Content-Type", "application/x-tar")
		io.Copy(w, io.LimitReader(zeros{}, n))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return e
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// serve runs p on a socket in dir until the test ends, and returns a
// client of it.
func serve(t testing.TB, p *Proxy, dir string) (string, *http.Client) {
	socket := filepath.Join(dir, "docker.sock")
	serveUntilEnd(t, p.Serve, socket)
	return socket, client(socket)
}

// serveUntilEnd runs serve on socket until the test ends, once it listens,
// and returns a function that ends it early.
func serveUntilEnd(t testing.TB, serve func(ctx context.Context, socket string) error, socket string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, socket) }()
	var stopped atomic.Bool
	stop := func() {
		if stopped.CompareAndSwap(false, true) {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s", socket)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return stop
}

func client(socket string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
}

// setup is an engine and a proxy in front of it.
func setup(t testing.TB, p *Proxy) (string, *http.Client) {
	dir := shortDir(t)
	p.Engine = filepath.Join(dir, "vm-docker.sock")
	startEngine(t, p.Engine)
	return serve(t, p, dir)
}

func TestPingPassesWithItsHeaders(t *testing.T) {
	socket, c := setup(t, &Proxy{})
	fi, err := os.Stat(socket)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("the socket: %v %v", fi, err)
	}
	resp, err := c.Get("http://docker/_ping")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "OK" || resp.Header.Get("Api-Version") != "1.41" || !strings.HasPrefix(resp.Header.Get("Server"), "Docker/20.10") {
		t.Fatalf("ping: %s %q %v", resp.Status, body, resp.Header)
	}
}

// upgrade sends an upgrade request on a new connection to socket and
// returns the connection after the 101.
func upgrade(t *testing.T, socket, path, proto string) (*net.UnixConn, *bufio.Reader) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: api.moby.localhost\r\nConnection: Upgrade\r\nUpgrade: %s\r\nContent-Length: 0\r\n\r\n", path, proto)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Upgrade") != proto ||
		resp.Header.Get("Content-Type") != "application/vnd.docker.raw-stream" {
		t.Fatalf("%s: %s %v", path, resp.Status, resp.Header)
	}
	return conn.(*net.UnixConn), br
}

// An attach (Upgrade: tcp) and BuildKit's session (Upgrade: h2c) become
// two-way streams: each line comes back as it is sent, and the engine's
// output after the client ended its input (a half close, as docker run -i
// does at the end of stdin) still arrives.
func TestUpgradedStreamsKeepHalfClose(t *testing.T) {
	p := &Proxy{}
	socket, _ := setup(t, p)
	for path, proto := range map[string]string{"/v1.41/containers/c1/attach?stream=1&stdin=1&stdout=1": "tcp", "/session": "h2c"} {
		conn, br := upgrade(t, socket, path, proto)
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		for i := range 3 {
			fmt.Fprintf(conn, "line %d\n", i)
			if got, err := br.ReadString('\n'); err != nil || got != fmt.Sprintf("echo line %d\n", i) {
				t.Fatalf("%s: %q %v", path, got, err)
			}
		}
		if n := p.Activity().Connections; n < 1 {
			t.Errorf("%s: Activity counts %d connections during an attach", path, n)
		}
		if err := conn.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(br)
		if err != nil || string(rest) != "input ended\n" {
			t.Fatalf("%s: after the half close: %q %v", path, rest, err)
		}
		conn.Close()
	}
}

// events (a stream that never ends by itself) reach the client as the
// engine sends them, not when a buffer fills.
func TestStreamsAreNotBuffered(t *testing.T) {
	_, c := setup(t, &Proxy{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://docker/v1.41/events", nil)
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 5 {
		line, err := br.ReadString('\n')
		if err != nil || line != fmt.Sprintf(`{"status":"event %d"}`+"\n", i) {
			t.Fatalf("event %d: %q %v", i, line, err)
		}
	}
	// Five events 20 ms apart; a buffered stream would hold them far longer.
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("five events took %s", took)
	}
}

// A large streamed body (docker load, docker cp to a container) arrives
// whole; a large answer (docker cp from one) too.
func TestLargeBodiesPassWhole(t *testing.T) {
	_, c := setup(t, &Proxy{})
	const size = 256 << 20
	h := sha256.New()
	io.Copy(h, io.LimitReader(zeros{}, size))
	want := fmt.Sprintf(`{"stream":"%d %x"}`, size, h.Sum(nil))
	for _, req := range []struct{ method, path string }{{"POST", "/v1.41/images/load"}, {"PUT", "/v1.41/containers/c1/archive?path=/"}} {
		// Unknown length: sent chunked, as the docker CLI streams it.
		r, _ := http.NewRequest(req.method, "http://docker"+req.path, io.NopCloser(io.LimitReader(zeros{}, size)))
		r.Header.Set("Content-Type", "application/x-tar")
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != want {
			t.Fatalf("%s %s: %s %q, want %q", req.method, req.path, resp.Status, got, want)
		}
	}
	resp, err := c.Get("http://docker/v1.41/containers/c1/archive?path=/&n=" + strconv.Itoa(size))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != size {
		t.Fatalf("GET archive: %d bytes, %v", n, err)
	}
}

// dockerError decodes an error as the docker CLI does.
func dockerError(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var e struct{ Message string }
	if resp.Header.Get("Content-Type") != "application/json" || json.NewDecoder(resp.Body).Decode(&e) != nil {
		t.Fatalf("%s is no Docker error", resp.Status)
	}
	return e.Message
}

// Without an engine the client is told the App is not running and how
// to start it; with a Wake, the engine is woken (once, for requests at
// the same time) and the request answered.
func TestNoEngineAndWake(t *testing.T) {
	dir := shortDir(t)
	p := &Proxy{Engine: filepath.Join(dir, "vm-docker.sock")}
	_, c := serve(t, p, dir)
	resp, err := c.Get("http://docker/_ping")
	if err != nil {
		t.Fatal(err)
	}
	if msg := dockerError(t, resp); resp.StatusCode != http.StatusServiceUnavailable || msg != NotRunning {
		t.Fatalf("no engine: %s %q", resp.Status, msg)
	}

	dir = shortDir(t)
	var wakes atomic.Int32
	p = &Proxy{Engine: filepath.Join(dir, "vm-docker.sock"), Wake: func(ctx context.Context) error {
		wakes.Add(1)
		time.Sleep(200 * time.Millisecond) // a resume takes a while
		startEngine(t, filepath.Join(dir, "vm-docker.sock"))
		return nil
	}}
	_, c = serve(t, p, dir)
	fourAtOnceWakeOnce(t, &wakes, "a ping", func() error {
		resp, err := c.Get("http://docker/_ping")
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "OK" {
			return fmt.Errorf("%s %q", resp.Status, body)
		}
		return nil
	})

	// A wake that fails says why.
	dir = shortDir(t)
	p = &Proxy{Engine: filepath.Join(dir, "vm-docker.sock"), Wake: func(context.Context) error { return fmt.Errorf("the disk is full") }}
	_, c = serve(t, p, dir)
	resp, err = c.Get("http://docker/_ping")
	if err != nil {
		t.Fatal(err)
	}
	if msg := dockerError(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(msg, "could not be woken: the disk is full") {
		t.Fatalf("a failed wake: %s %q", resp.Status, msg)
	}
}

// fourAtOnceWakeOnce makes call, a client's (what) of an engine that does
// not answer yet, from four goroutines at once, and fails t unless each
// succeeded and the engine was woken once (wakes counts the wakes).
func fourAtOnceWakeOnce(t *testing.T, wakes *atomic.Int32, what string, call func() error) {
	t.Helper()
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- call() }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("%s that woke the engine: %v", what, err)
		}
	}
	if n := wakes.Load(); n != 1 {
		t.Errorf("four of %s at once woke the engine %d times", what, n)
	}
}

// A create that binds a folder the VM does not share is refused with
// Docker's error; one whose binds are shared, the VM's own, or named
// volumes reaches the engine with its body unchanged.
func TestCreateRefusesUnsharedBinds(t *testing.T) {
	shared := t.TempDir()
	unshared := t.TempDir()
	e := &Proxy{Shared: func(context.Context) ([]resource.AppMount, error) {
		return []resource.AppMount{{Location: shared}}, nil
	}}
	dir := shortDir(t)
	e.Engine = filepath.Join(dir, "vm-docker.sock")
	eng := startEngine(t, e.Engine)
	_, c := serve(t, e, dir)
	create := func(hostConfig string) *http.Response {
		resp, err := c.Post("http://docker/v1.41/containers/create?name=x", "application/json",
			strings.NewReader(`{"Image":"busybox","HostConfig":`+hostConfig+`}`))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, hc := range []string{
		`{"Binds":["` + unshared + `:/src"]}`,
		`{"Mounts":[{"Type":"bind","Source":"` + unshared + `/","Target":"/src"}]}`,
	} {
		resp := create(hc)
		msg := dockerError(t, resp)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, unshared+" is not shared with the App's VM") ||
			!strings.Contains(msg, "paddock set mounts="+shared+","+unshared) {
			t.Errorf("%s: %s %q", hc, resp.Status, msg)
		}
	}
	for _, hc := range []string{
		`{"Binds":["` + shared + `/sub:/src:ro","/var/run/docker.sock:/var/run/docker.sock","data:/data","/proc:/host/proc:ro"]}`,
		`{"Mounts":[{"Type":"bind","Source":"/"},{"Type":"volume","Source":"data"}],"Binds":["/nonexistent/here:/x"]}`,
		`null`,
	} {
		resp := create(hc)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"Image":"busybox","HostConfig":` + hc + `}`
		if resp.StatusCode != http.StatusCreated || eng.creates.Load() != want {
			t.Errorf("%s: %s %s; the engine got %q", hc, resp.Status, body, eng.creates.Load())
		}
	}
}

// Activity counts the open connections and the last moment of use.
func TestActivity(t *testing.T) {
	p := &Proxy{}
	if a := p.Activity(); a.Connections != 0 || !a.Last.IsZero() {
		t.Fatalf("before any client: %+v", a)
	}
	socket, _ := setup(t, p)
	c := client(socket)
	t0 := time.Now()
	resp, err := c.Get("http://docker/_ping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a := p.Activity(); a.Connections < 1 || a.Last.Before(t0) {
		t.Fatalf("with a client kept alive: %+v", a)
	}
	c.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for p.Activity().Connections != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after the client left: %+v", p.Activity())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A socket removed or replaced under the proxy (by the host agent of a VM
// an older Paddock made, which forwarded onto docker.sock) is made again.
func TestSocketRemovedIsMadeAgain(t *testing.T) {
	defer func(d time.Duration) { keepInterval = d }(keepInterval)
	keepInterval = 20 * time.Millisecond
	socket, c := setup(t, &Proxy{})
	ping := func() error {
		resp, err := c.Get("http://docker/_ping")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, replace := range []bool{false, true} {
		c.CloseIdleConnections()
		if err := os.Remove(socket); err != nil {
			t.Fatal(err)
		}
		if replace {
			l, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			l.Close()
		}
		deadline := time.Now().Add(5 * time.Second)
		for ping() != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the socket was not made again (replaced: %v)", replace)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
