package client_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
)

// paddockBin is the real daemon, built once by TestMain: autostart starts
// it.
var paddockBin string

func TestMain(m *testing.M) { paddocktest.Main(m, &paddockBin, nil) }

// instance is a private HOME with the paths of its default instance; the
// daemons autostart starts inherit this process's environment.
type instance struct {
	home, socket, logDir, pidFile string
}

func newInstance(t *testing.T) instance {
	home, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "PADDOCK_INSTANCE", "PADDOCK_DATABASE"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	path := func(key string) string {
		out, err := exec.Command(paddockBin, "service", "paths", key).Output()
		if err != nil {
			t.Fatalf("paddock service paths %s: %v", key, err)
		}
		return strings.TrimSpace(string(out))
	}
	in := instance{home: home, socket: path("socket"), logDir: path("log_dir"), pidFile: path("pid_file")}
	if err := os.MkdirAll(in.logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	return in
}

func (in instance) autostart(args ...string) *client.Autostart {
	return &client.Autostart{
		Command: append([]string{paddockBin, "serve"}, args...),
		LogPath: filepath.Join(in.logDir, "paddock.log"),
		PIDFile: in.pidFile,
	}
}

// stopDaemon ends the daemon whose pid the instance recorded.
func (in instance) stopDaemon(t *testing.T) {
	data, err := os.ReadFile(in.pidFile)
	if err != nil {
		return
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if p, err := os.FindProcess(pid); err == nil && pid > 0 {
		p.Signal(syscall.SIGTERM)
		for range 100 {
			if p.Signal(syscall.Signal(0)) != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("the started daemon %d did not stop", pid)
	}
}

func TestConnectWithoutAutostartSaysTheDaemonIsUnreachable(t *testing.T) {
	in := newInstance(t)
	err := client.NewUnix(in.socket).Connect(context.Background(), nil)
	if !errors.Is(err, client.ErrUnreachable) || !strings.Contains(err.Error(), in.socket) {
		t.Fatalf("Connect = %v, want unreachable at %s", err, in.socket)
	}
}

// Two front doors that find no daemon at once both start one; the one that
// wins the instance's lock serves them both, and it outlives them.
func TestConnectStartsOneDaemonForConcurrentCallers(t *testing.T) {
	in := newInstance(t)
	t.Cleanup(func() { in.stopDaemon(t) })
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = client.NewUnix(in.socket).Connect(context.Background(), in.autostart()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	cl := client.NewUnix(in.socket)
	if _, err := cl.Version(context.Background()); err != nil {
		t.Fatalf("the started daemon does not answer: %v", err)
	}
	if _, err := os.Stat(in.pidFile); err != nil {
		t.Fatalf("no daemon recorded its pid: %v", err)
	}
	// A daemon that answers is not started again.
	if err := cl.Connect(context.Background(), &client.Autostart{Command: []string{"/nonexistent"}, LogPath: "/nonexistent/log"}); err != nil {
		t.Fatalf("Connect to a running daemon: %v", err)
	}
}

// A daemon that exits before it is ready fails Connect with what it said.
func TestConnectReportsWhyTheDaemonExited(t *testing.T) {
	in := newInstance(t)
	err := client.NewUnix(in.socket).Connect(context.Background(), in.autostart("--database", "mysql://nowhere"))
	if err == nil || !strings.Contains(err.Error(), "the daemon exited") || !strings.Contains(err.Error(), "mysql") {
		t.Fatalf("Connect = %v, want the daemon's exit and its complaint about the database", err)
	}
}
