//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// checkStopResumes stops the running App, which saves its VM's state, and
// starts it again, which resumes it: a container left running runs on,
// and the home folder is mounted again for the next container. Then the
// daemon d stops, as a service restart or an upgrade stops it, which saves
// the running VM too, and the next daemon resumes it.
func checkStopResumes(t *testing.T, e *env, d *runningDaemon) {
	t.Helper()
	e.docker("", "--context", "paddock", "run", "-d", "--name", "keep", "busybox:offline", "sleep", "100000")
	began := time.Now()
	e.mustRun("stop", "--timeout=5m")
	t.Logf("stop with the state saved: %v", time.Since(began).Round(time.Millisecond))
	if msg := vmRunning(e).Message; !strings.Contains(msg, "state saved") {
		t.Fatalf("after stop the VM says %q, want its state saved", msg)
	}
	began = time.Now()
	e.mustRun("start", "--timeout=10m")
	t.Logf("start that resumes, to Settled: %v", time.Since(began).Round(time.Millisecond))
	checkResumed(t, e, "the start")
	proj := filepath.Join(e.home, "proj")
	if out := e.docker("", "--context", "paddock", "run", "--rm", "-v", proj+":/src", "busybox:offline", "cat", "/src/from-host.txt"); out != "written on the host\n" {
		t.Fatalf("after the resume a container reads %q from the home folder", out)
	}

	began = time.Now()
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("the daemon exited %d on SIGTERM: %s", code, d.log)
	}
	t.Logf("daemon stop with the App's state saved: %v", time.Since(began).Round(time.Millisecond))
	began = time.Now()
	e.serve()
	e.mustRun("start", "--timeout=10m")
	t.Logf("next daemon's start to the App Settled, resumed: %v", time.Since(began).Round(time.Millisecond))
	checkResumed(t, e, "the daemon's restart")
	e.docker("", "--context", "paddock", "rm", "-f", "keep")
}

// checkResumed fails t unless the App's VM resumed after what happened
// and the container keep runs on.
func checkResumed(t *testing.T, e *env, after string) {
	t.Helper()
	if c := vmRunning(e); c.Reason != resource.ReasonResumed {
		t.Fatalf("after %s the VM's Running is %s: %s; want Resumed", after, c.Reason, c.Message)
	}
	if out := e.docker("", "--context", "paddock", "ps", "--filter", "name=keep", "--format", "{{.Status}}"); !strings.HasPrefix(out, "Up") {
		t.Fatalf("the container left running is %q after %s, want Up", out, after)
	}
}

// checkStopWithAFolderInUse stops the App while a containerd task holds a
// bind mount of the home folder, which keeps QEMU from saving the VM (its
// 9p folders block a migration): the stop shuts the VM down instead and
// says why.
func checkStopWithAFolderInUse(t *testing.T, e *env) {
	t.Helper()
	proj := filepath.Join(e.home, "proj")
	e.mustRun("ctr", "run", "-d", "--mount", "type=bind,src="+proj+",dst=/src,options=rbind:rw", "docker.io/library/busybox:offline", "busy", "sleep", "100000")
	e.mustRun("stop", "--timeout=5m")
	c := vmRunning(e)
	if c.Reason != resource.ReasonStopped || !strings.Contains(c.Message, "full shutdown") || !strings.Contains(c.Message, "bind-mounted") {
		t.Fatalf("a stop with the home folder in use: Running %s: %q; want Stopped after a full shutdown, naming the bind mount", c.Reason, c.Message)
	}
	// The guest shut down within the grace: the task, a sleep that
	// ignores SIGTERM as its namespace's first process, did not hold
	// systemd's shutdown until the daemon powered the VM off (the guest
	// image's paddock-stop.conf). The host agent says it exited.
	events, _ := os.ReadFile(filepath.Join(e.path("lima_home"), resource.AppVMName, filenames.HostAgentStdoutLog))
	if !strings.Contains(string(events), `"exiting":true`) {
		t.Fatalf("the VM was powered off, not shut down: its host agent never said it exited:\n%s", events)
	}
}

// vmRunning is the App's VM's Running condition.
func vmRunning(e *env) metav1.Condition {
	e.t.Helper()
	c := meta.FindStatusCondition(e.vm2("paddock", "app").Status.Conditions, resource.VMRunning)
	if c == nil {
		e.t.Fatal("the App's VM has no Running condition")
	}
	return *c
}
