//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/resource"
)

// checkSuspendAndWake sets the shortest suspendWhenIdle on the running App,
// with no container running and no Docker client: the App is suspended
// (its VM's host agent and QEMU end, its state saved), and the next
// 'docker ps' through the context wakes it and is answered. It logs how
// long that first 'docker ps' took, and turns suspending off again.
func checkSuspendAndWake(t *testing.T, e *env) {
	t.Helper()
	suspendIdle(t, e)
	began := time.Now()
	e.docker("", "--context", "paddock", "ps")
	t.Logf("first docker ps on a suspended App, to its answer: %v", time.Since(began).Round(time.Millisecond))
	stayAwake(t, e)
}

// checkContainerdSuspendAndWake suspends the App running containerd as
// checkSuspendAndWake does Docker's: ctr on the host (paddock run names
// the daemon's containerd socket in CONTAINERD_ADDRESS) wakes it, and so
// does 'paddock ctr', whose ctr runs in the VM over SSH.
func checkContainerdSuspendAndWake(t *testing.T, e *env) {
	t.Helper()
	if _, err := exec.LookPath("ctr"); err != nil {
		t.Fatal("the App test needs containerd's ctr on the host (packaging/ci-deps.sh installs containerd)")
	}
	short := e.path("short_dir")
	if fi, err := os.Stat(resource.EngineSocket(short, resource.EngineContainerd)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the daemon's containerd socket: %v %v", fi, err)
	}
	if _, err := os.Stat(resource.EngineForward(short, resource.EngineContainerd)); err != nil {
		t.Fatalf("the VM's forward of containerd's socket: %v", err)
	}
	// ctr gives up on a server that sends nothing for its connect
	// timeout (10 s by default, less than a resume under emulation on a
	// busy host): 2 s here, so that the relay's greeting of a client that
	// wakes the App is what lets the wake through, however long it takes.
	hostCtr := func() {
		t.Helper()
		out, errOut, code := e.run("", "run", "ctr", "--connect-timeout=2s", "version")
		if code != 0 || !strings.Contains(out, "Server:") || !strings.Contains(out, "Revision:") {
			t.Fatalf("ctr version on the host: exit %d: %s %s", code, out, errOut)
		}
	}
	hostCtr()

	suspendIdle(t, e)
	began := time.Now()
	hostCtr()
	t.Logf("first ctr version on the host on a suspended App, to its answer: %v", time.Since(began).Round(time.Millisecond))
	// Idle again, it is suspended again, its idle time counted from the
	// wake.
	if idle := awaitSuspended(t, e, time.Now()); idle < resource.MinSuspendWhenIdle {
		t.Fatalf("the woken App was suspended again %v after its client left, before its idle time of %s", idle, resource.MinSuspendWhenIdle)
	}
	began = time.Now()
	if out, errOut, code := e.run("", "ctr", "images", "ls", "-q"); code != 0 || !strings.Contains(out, "busybox:offline") || !strings.Contains(errOut, "waking it") {
		t.Fatalf("paddock ctr on a suspended App: exit %d: %s %s", code, out, errOut)
	}
	t.Logf("paddock ctr images ls on a suspended App: %v", time.Since(began).Round(time.Millisecond))
	stayAwake(t, e)
}

// suspendIdle sets the shortest suspendWhenIdle on the running App, with
// no container running and no client of its engine, and waits until the
// App is suspended.
func suspendIdle(t testing.TB, e *env) {
	t.Helper()
	e.mustRun("set", "suspendWhenIdle="+resource.MinSuspendWhenIdle.String(), "--timeout=5m")
	awaitSuspended(t, e, time.Now())
}

// awaitSuspended waits until the App, idle since began, is suspended (its
// VM's host agent and QEMU ended, its state saved), and returns how long
// after began it was seen suspended.
func awaitSuspended(t testing.TB, e *env, began time.Time) time.Duration {
	t.Helper()
	deadline := began.Add(3 * time.Minute)
	for {
		a := e.app()
		if c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); c != nil && c.Status == "True" && c.Reason == resource.ReasonSuspended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the App was not suspended in 3m; its conditions: %+v", a.Status.Conditions)
		}
		time.Sleep(time.Second)
	}
	took := time.Since(began)
	t.Logf("idle for %s, then suspended: %v later", resource.MinSuspendWhenIdle, took.Round(time.Millisecond))
	if msg := vmRunning(e).Message; !strings.Contains(msg, "state saved") {
		t.Errorf("the suspended App's VM says %q, want its state saved", msg)
	}
	// Suspended, the VM's processes are gone: no CPU, no memory.
	dir := filepath.Join(e.path("lima_home"), resource.AppVMName)
	for _, name := range []string{filenames.HostAgentPID, filenames.PIDFile("qemu")} {
		if pid, alive := pidAlive(filepath.Join(dir, name)); alive {
			t.Fatalf("the suspended App's %s (pid %d) still runs", name, pid)
		}
	}
	if out := e.mustRun("status"); !strings.Contains(out, "Status:      Suspended") {
		t.Errorf("status of the suspended App:\n%s", out)
	}
	return took
}

// stayAwake turns suspending off on the App that a client woke, and checks
// that its VM resumed.
func stayAwake(t testing.TB, e *env) {
	t.Helper()
	// The engine answers before Lima's last check of the resume passed:
	// the VM says Resumed once the App settled again, which 'set' waits
	// for.
	e.mustRun("set", "suspendWhenIdle=0", "--timeout=5m")
	if c := vmRunning(e); c.Reason != resource.ReasonResumed {
		t.Errorf("the woken App's VM: Running %s: %s; want Resumed", c.Reason, c.Message)
	}
}

// pidAlive reads the pid file path and says whether its process runs; a
// missing file is no process.
func pidAlive(path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, syscall.Kill(pid, 0) == nil
}
