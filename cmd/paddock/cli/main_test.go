package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/platform/qemu"
)

// paddockBin is the paddock binary the tests run, built once by TestMain.
var paddockBin string

// benchHome is the one home of every run of BenchmarkVMStartToRunning,
// removed by TestMain.
var benchHome string

func TestMain(m *testing.M) {
	paddocktest.Main(m, &paddockBin, func() {
		if benchHome != "" {
			os.RemoveAll(benchHome)
		}
	})
}

// env is a private HOME for one test, short enough for socket paths.
// Commands start no daemon there unless autostart is set: a command run
// after the test's daemon stopped would otherwise leave one behind.
type env struct {
	t         testing.TB
	home      string
	instance  string
	autostart bool
	bin       string // the paddock binary; paddockBin if empty
}

func (e *env) binary() string {
	if e.bin != "" {
		return e.bin
	}
	return paddockBin
}

func newEnv(t testing.TB, instance string) *env {
	t.Helper()
	home, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return &env{t: t, home: home, instance: instance}
}

func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		// The translation cache's size passes through, for measuring
		// the idle memory of TestVMLifecycle's VM at other sizes.
		keep := strings.HasPrefix(kv, qemu.EnvTBSize+"=")
		if keep || !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "PADDOCK_") {
			out = append(out, kv)
		}
	}
	out = append(out, "HOME="+e.home, "PADDOCK_INSTANCE="+e.instance)
	if !e.autostart {
		out = append(out, "PADDOCK_NO_AUTOSTART=1")
	}
	return out
}

// run runs paddock and returns its stdout, stderr and exit code.
func (e *env) run(stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	return e.runWith(nil, stdin, args...)
}

// runWith is run with the variables extra added to the environment.
func (e *env) runWith(extra []string, stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command(e.binary(), args...)
	cmd.Env = append(e.environ(), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run paddock %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustRun runs paddock and fails the test unless it exits 0.
func (e *env) mustRun(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run("", args...)
	if code != 0 {
		e.t.Fatalf("paddock %v exited %d: %s%s", args, code, out, errOut)
	}
	return out
}

func (e *env) path(key string) string {
	return strings.TrimSpace(e.mustRun("service", "paths", key))
}

// runningDaemon is a running `paddock serve`.
type runningDaemon struct {
	cmd    *exec.Cmd
	log    *bytes.Buffer
	exited chan error
	http   *http.Client
}

// serve starts `paddock serve` in the foreground and waits until it is ready.
func (e *env) serve(args ...string) *runningDaemon {
	e.t.Helper()
	cmd := exec.Command(e.binary(), append([]string{"serve"}, args...)...)
	cmd.Env = e.environ()
	d := &runningDaemon{cmd: cmd, log: &bytes.Buffer{}, exited: make(chan error, 1)}
	cmd.Stderr = d.log
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { d.exited <- cmd.Wait() }()
	e.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-d.exited
		}
	})
	d.http = unixClient(e.path("socket"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := d.http.Get("http://paddock/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return d
			}
		}
		select {
		case err := <-d.exited:
			e.t.Fatalf("paddock serve exited before it was ready (%v): %s", err, d.log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("paddock serve not ready after 20s: %s", d.log)
		}
	}
}

// stop sends sig and returns the exit code.
func (d *runningDaemon) stop(t testing.TB, sig syscall.Signal) int {
	t.Helper()
	d.cmd.Process.Signal(sig)
	select {
	case <-d.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("daemon did not exit on %v: %s", sig, d.log)
	}
	return d.cmd.ProcessState.ExitCode()
}

func unixClient(socket string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
}

// call sends a request and returns the status and decoded JSON body.
func call(t testing.TB, c *http.Client, method, url, contentType, body string) (int, map[string]any, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s %s answered non-JSON %q", method, url, data)
		}
	}
	return resp.StatusCode, m, resp.Header
}

func decodeJSON(t testing.TB, data string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
}
