//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/lima"
)

// The VM tests boot real VMs under QEMU from the image that
// platform/linux/guestimage builds, through the real daemon and CLI. They
// run with PADDOCK_E2E=1; then a missing prerequisite fails them.

// vmTemplate returns the Lima template `paddock vm template` prints for
// the test image, which it builds, with the guest agent beside the paddock
// binary. The tests that boot VMs call it first and then t.Parallel, so
// that they build these one after the other and then run side by side:
// under emulation such a test leaves about half of a 2-core host idle,
// waiting on its guest, and CI's time is the sum of this package's tests.
// They keep their environment to their commands (env.environ), since
// t.Setenv cannot be used beside other tests.
func vmTemplate(t testing.TB) string {
	t.Helper()
	if os.Getenv("PADDOCK_E2E") != "1" {
		t.Skip("set PADDOCK_E2E=1 to boot real VMs with QEMU (needs qemu-system-x86, qemu-utils, openssh-client and root for the image build)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Fatalf("the VM tests boot x86_64 guests on a Linux amd64 host, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// Lima finds the guest agent beside the paddock binary.
	if _, err := lima.BuildGuestAgent(ctx, "go", "../../..", filepath.Dir(paddockBin), limayaml.X8664); err != nil {
		t.Fatal(err)
	}
	build := exec.CommandContext(ctx, "../../../platform/linux/guestimage/build.sh")
	build.Stderr = os.Stderr
	out, err := build.Output()
	if err != nil {
		t.Fatalf("build the guest image: %v", err)
	}
	// The template `paddock vm template` prints, so that these tests
	// boot what the README tells users to.
	tmpl, err := image.VMTemplate(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tmpl)
}

// vmState is what the tests read of a VM.
func (e *env) vm(name string) *resource.VM {
	e.t.Helper()
	out := e.mustRun("get", "vm", name, "-o", "json")
	v := &resource.VM{}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// hostAgentPID reads the live host agent's pid of a VM, 0 when none runs.
func (e *env) hostAgentPID(name string) int {
	data, err := os.ReadFile(filepath.Join(e.path("lima_home"), name, filenames.HostAgentPID))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// qemuCount counts the QEMU processes of a VM's instance directory.
func (e *env) qemuCount(name string) int {
	dir := filepath.Join(e.path("lima_home"), name)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cmd := string(data)
		if strings.Contains(cmd, "qemu-system") && strings.Contains(cmd, dir) {
			n++
		}
	}
	return n
}

// killHostAgent kills the VM's host agent, pid, with SIGKILL and waits until
// the VM runs again, restarted once more than count, with another host
// agent.
func (e *env) killHostAgent(name string, pid, count int) {
	e.t.Helper()
	syscall.Kill(pid, syscall.SIGKILL)
	eventually(e.t, 10*time.Minute, "restart after the host agent was killed", func() bool {
		v := e.vm(name)
		return v.Status.RestartCount == count+1 && condTrue(v, resource.VMRunning)
	})
	if now := e.hostAgentPID(name); now == 0 || now == pid {
		e.t.Fatalf("host agent pid %d after the restart (was %d)", now, pid)
	}
}

// guestMemTotalMiB is the memory the guest's kernel has (MemTotal), read
// through paddock vm shell with vm, the VM's name and flags.
func guestMemTotalMiB(t *testing.T, e *env, vm ...string) int {
	t.Helper()
	args := append(append([]string{"vm", "shell"}, vm...), "--", "awk", "/^MemTotal:/ { print $2 }", "/proc/meminfo")
	out := e.mustRun(args...)
	kib, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("MemTotal in the guest: %q", out)
	}
	return kib / 1024
}

// eventually polls cond every half second until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func TestVMLifecycle(t *testing.T) {
	tmpl := vmTemplate(t)
	t.Parallel() // see vmTemplate
	e := newEnv(t, "default")
	file := filepath.Join(e.home, "debian.yaml")
	if err := os.WriteFile(file, []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	d := e.serve()
	t.Cleanup(func() { deleteVMs(e, "dev") })

	// Create, then start with its progress shown and its idle cost
	// measured: Created, then Running with the first count.
	e.mustRun("vm", "create", "dev", "--template", file)
	startShowingProgressAndMeasureIdle(t, e, "dev")
	v := e.vm("dev")
	if !condTrue(v, resource.VMCreated) || !condTrue(v, resource.VMRunning) || v.Status.RestartCount != 1 {
		t.Fatalf("after create --start: %+v", v.Status)
	}
	if v.Status.Accelerator == "" || v.Status.TemplateConfigMap != resource.TemplateName("dev") {
		t.Fatalf("status lacks the accelerator or the template copy: %+v", v.Status)
	}
	if out := e.mustRun("vm", "shell", "dev", "uname", "-s"); strings.TrimSpace(out) != "Linux" {
		t.Fatalf("shell ran %q", out)
	}
	// "--" marks where the command begins; the guest's shell sees the
	// arguments as given.
	if out := e.mustRun("vm", "shell", "dev", "--", "printf", "%s|", "a b", "--"); out != "a b|--|" {
		t.Fatalf("shell -- ran %q", out)
	}
	// Logs and ssh parameters come from the daemon.
	if out := e.mustRun("vm", "logs", "dev"); strings.TrimSpace(out) == "" {
		t.Fatal("vm logs printed nothing for a running VM")
	}
	if out := e.mustRun("vm", "logs", "dev", "--stream", "stdout"); !strings.Contains(out, `"running":true`) {
		t.Fatalf("the host agent's events do not say it runs: %q", out)
	}
	code, ssh, _ := call(t, d.http, "GET", "http://paddock/api/v1alpha1/namespaces/default/vms/dev/ssh", "", "")
	if code != 200 || ssh["host"] != "127.0.0.1" || ssh["port"].(float64) <= 0 || ssh["user"] == "" {
		t.Fatalf("ssh parameters: %d %v", code, ssh)
	}
	if _, err := os.Stat(ssh["identityFile"].(string)); err != nil {
		t.Fatalf("the identity file handed out: %v", err)
	}

	// A template change restarts the running VM with it, the count going
	// up once; the guest sees it. The memory grows rather than the CPUs
	// shrink, so that the boots after it keep both CPUs (under emulation
	// one costs a third more). 'vm restart' takes the controller's same
	// way (a stop, then a boot), from a request rather than a change:
	// core/vm's tests cover the request, and its boot, some 80 s of CPU
	// under emulation, is not repeated here.
	before := v.Status.ObservedTemplateResourceVersion
	e.mustRun("vm", "params", "dev", "memory=2GiB")
	e.mustRun("wait", "vm/dev", "--for=condition=Running", "--timeout=10m")
	v = e.vm("dev")
	copyRV := e.mustRun("get", "configmap", resource.TemplateName("dev"), "-o", "json")
	if v.Status.ObservedTemplateResourceVersion == before || !strings.Contains(copyRV, `"resourceVersion": "`+v.Status.ObservedTemplateResourceVersion+`"`) {
		t.Fatalf("observedTemplateResourceVersion %s (was %s) is not the copy's: %s", v.Status.ObservedTemplateResourceVersion, before, copyRV)
	}
	if v.Status.RestartCount != 2 {
		t.Fatalf("after the template change: restartCount %d, want 2", v.Status.RestartCount)
	}
	if mib := guestMemTotalMiB(t, e, "dev"); mib < 1536 {
		t.Fatalf("the guest has %d MiB after memory=2GiB", mib)
	}
	count := v.Status.RestartCount

	// A killed daemon leaves the VM running; the next daemon adopts it.
	agent := e.hostAgentPID("dev")
	if agent == 0 {
		t.Fatal("no live host agent")
	}
	d.cmd.Process.Kill()
	<-d.exited
	d = e.serve()
	e.mustRun("wait", "vm/dev", "--for=condition=Running", "--timeout=2m")
	if v = e.vm("dev"); v.Status.RestartCount != count || e.hostAgentPID("dev") != agent || e.qemuCount("dev") != 1 {
		t.Fatalf("after a daemon crash: restarts %d (want %d), host agent %d (want %d), %d QEMU processes",
			v.Status.RestartCount, count, e.hostAgentPID("dev"), agent, e.qemuCount("dev"))
	}
	// The adopted host agent, which is not this daemon's child, is
	// watched: killed, it is noticed and the VM restarted. (A host agent
	// the daemon started is watched the same way, on a pidfd; the driver
	// reaps its own child, which platform/lima's TestE2ELifecycle kills.
	// One kill here spares a boot, some 40 s under emulation.)
	e.killHostAgent("dev", agent, count)

	// A graceful daemon stop stops the VM; the next daemon starts it again.
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("daemon exit %d: %s", code, d.log)
	}
	if e.hostAgentPID("dev") != 0 || e.qemuCount("dev") != 0 {
		t.Fatal("the VM still runs after the daemon's graceful stop")
	}
	e.serve()
	e.mustRun("wait", "vm/dev", "--for=condition=Running", "--timeout=10m")

	// Stop, then delete: the machine and the template copy are gone.
	e.mustRun("vm", "stop", "dev", "--timeout=5m")
	if _, errOut, _ := e.run("", "vm", "get", "dev"); strings.Contains(errOut, emulationWarning) {
		t.Errorf("vm get of a stopped VM warns: %q", errOut)
	}
	if _, errOut, code := e.run("", "vm", "shell", "dev", "true"); code != 1 || !strings.Contains(errOut, "is not running") {
		t.Fatalf("shell on a stopped VM: exit %d, %q", code, errOut)
	}
	e.mustRun("vm", "delete", "dev", "--timeout=5m")
	if _, err := os.Stat(filepath.Join(e.path("lima_home"), "dev")); !os.IsNotExist(err) {
		t.Fatalf("instance directory left behind: %v", err)
	}
	if _, _, code := e.run("", "get", "configmap", resource.TemplateName("dev")); code != 1 {
		t.Fatal("template copy left behind")
	}
}

func TestVMUnbootableTemplateSaysWhy(t *testing.T) {
	tmpl := vmTemplate(t)
	e := newEnv(t, "default")
	junk := filepath.Join(e.home, "junk-kernel")
	if err := os.WriteFile(junk, []byte("this is not a kernel"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Point the kernel at the junk file; Lima accepts the template.
	lines := strings.Split(tmpl, "\n")
	for i, l := range lines {
		if strings.Contains(l, "vmlinuz") {
			lines[i] = l[:strings.Index(l, "location:")] + "location: " + junk
		}
	}
	file := filepath.Join(e.home, "bad.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	e.serve()
	t.Cleanup(func() { deleteVMs(e, "bad") })
	_, errOut, code := e.run("", "vm", "create", "bad", "--template", file, "--start", "--timeout=5m")
	if code != 1 || !strings.Contains(errOut, "StartFailed") {
		t.Fatalf("unbootable VM: exit %d, %q", code, errOut)
	}
	v := e.vm("bad")
	msg := fmt.Sprint(v.Status.Conditions)
	if !strings.Contains(strings.ToLower(msg), "kernel") {
		t.Fatalf("StartFailed does not name the cause: %s", msg)
	}
}

func condTrue(v *resource.VM, t string) bool {
	for _, c := range v.Status.Conditions {
		if c.Type == t {
			return c.Status == "True" && c.ObservedGeneration == v.Metadata.Generation
		}
	}
	return false
}

// deleteVMs removes what a failed test left: it runs after the test's
// daemons stopped, so it starts one for the deletion and stops it after.
func deleteVMs(e *env, names ...string) {
	e.autostart = true
	e.run("", append([]string{"vm", "delete", "--timeout=2m"}, names...)...)
	stopStartedDaemon(e)
}
