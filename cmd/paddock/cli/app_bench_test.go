//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
)

// The App's figures: 'paddock start' on a fresh instance until Settled and
// 'docker info' answering through the instance's context; 'paddock stop'
// of the App with a container running, which saves its VM's state; a
// start that resumes it; and, after 'paddock stop --cold', a start that
// boots it ('start --cold'), then the share of a host core its QEMU takes
// while the App idles. Between the resume and the cold start, the App is
// suspended when idle and the first 'docker ps' wakes it. The resumed
// start, that first 'docker ps' and the save are also reported against
// the cold start, as the ratios to reach. Each iteration boots
// twice, and then boots the App's own VM template without its container
// engine, the figure the cold start is held against (bareStart). What each
// start adds over the VM's own boot (the host agent's
// first event to its Running event) is reported in two parts: before the
// boot, the daemon's part plus Lima's preparation (the cidata disk),
// which Lima's own start makes too; after it, until the CLI returned. Of
// the part after the boot, the daemon's alone (until a client following
// the App saw it Settled: the VM's controller, the App's, the engine's
// answer, the status writes) is reported too, and the rest is the CLI's
// (its wait, its exit).
//
//	PADDOCK_E2E=1 go test -run XXX -bench AppStart -benchtime 1x ./cmd/paddock/cli
func BenchmarkAppStart(b *testing.B) {
	e := appEnv(b)
	if _, err := exec.LookPath("docker"); err != nil {
		b.Fatal("the App benchmark needs the docker CLI (packaging/ci-deps.sh installs docker.io)")
	}
	e.serve()
	b.Cleanup(func() { e.run("", "delete", "--force", "--timeout=3m") })
	tarball, err := os.ReadFile(busyboxRootfs(b))
	if err != nil {
		b.Fatal(err)
	}
	dockerInfo := func() {
		cmd := exec.Command("docker", "--context", "paddock", "info", "--format", "{{.ServerVersion}}")
		cmd.Env = append(e.environ(), "DOCKER_HOST=")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("docker info: %v: %s", err, out)
		}
	}
	// start runs 'paddock start' and asks Docker; it returns how long that
	// took, and how much of it came before the host agent's first event
	// (the CLI, the API, the controllers, Lima's preparation of the boot)
	// and after its Running event (the controllers seeing it, the engine
	// asked, Settled, the CLI's wait). Each figure is logged as it is
	// taken: a later step that fails (a guest that locks up on a loaded
	// host) does not lose it.
	socket := e.path("socket")
	start := func(which string, flags ...string) (took, before, after, daemon time.Duration) {
		tl := followAppStart(b, socket)
		t0 := time.Now()
		e.mustRun(append([]string{"start", "--timeout=10m"}, flags...)...)
		done := time.Now()
		tl.stop()
		began, running := hostAgentTimes(b, appEventLog(b, e))
		before, after = began.Sub(t0), done.Sub(running)
		if tl.settled.IsZero() || tl.vmRunning.IsZero() || tl.engine.IsZero() {
			b.Fatalf("%s start: the App settled, but a client following it did not see every step: VM running at %v, engine at %v, Settled at %v",
				which, tl.vmRunning, tl.engine, tl.settled)
		}
		daemon = tl.settled.Sub(running)
		dockerInfo()
		took = time.Since(t0)
		ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
		b.Logf("%s start to Settled and docker info: %s; before the host agent's first event %s, after its Running event %s: "+
			"the VM's Running condition %s later, the engine's answer %s after that, Settled %s after that (the daemon's part: %s), the CLI returned %s after that",
			which, ms(took), ms(before), ms(after),
			ms(tl.vmRunning.Sub(running)), ms(tl.engine.Sub(tl.vmRunning)), ms(tl.settled.Sub(tl.engine)), ms(daemon), ms(done.Sub(tl.settled)))
		return took, before, after, daemon
	}
	var idle float64
	var first, save, resumed, woken, cold, bare time.Duration
	var firstBefore, firstAfter, firstDaemon, resumedBefore, resumedAfter, resumedDaemon, coldBefore, coldAfter, coldDaemon time.Duration
	for range b.N {
		// The App is made with its defaults but for the disk, whose 64GiB
		// a test host may not have free (the size costs no time: the disk
		// grows as it fills).
		e.mustRun("set", "--wait=false", "running=false", "disk=8GiB")
		took, before, after, daemon := start("first")
		first, firstBefore, firstAfter, firstDaemon = first+took, firstBefore+before, firstAfter+after, firstDaemon+daemon

		e.docker(string(tarball), "--context", "paddock", "import", "-", "busybox:offline")
		e.docker("", "--context", "paddock", "run", "-d", "--name", "bench", "busybox:offline", "sleep", "100000")
		t0 := time.Now()
		e.mustRun("stop", "--timeout=5m")
		save += time.Since(t0)
		b.Logf("stop with a container running, saving the state: %s", time.Since(t0).Round(time.Millisecond))

		took, before, after, daemon = start("resumed")
		resumed, resumedBefore, resumedAfter, resumedDaemon = resumed+took, resumedBefore+before, resumedAfter+after, resumedDaemon+daemon

		// Suspended when idle, the App is woken by a Docker request.
		e.docker("", "--context", "paddock", "rm", "-f", "bench")
		suspendIdle(b, e)
		t0 = time.Now()
		e.docker("", "--context", "paddock", "ps")
		woken += time.Since(t0)
		b.Logf("first docker ps on a suspended App, to its answer: %s", time.Since(t0).Round(time.Millisecond))
		stayAwake(b, e)

		e.mustRun("stop", "--cold", "--timeout=5m")
		took, before, after, daemon = start("cold", "--cold")
		cold, coldBefore, coldAfter, coldDaemon = cold+took, coldBefore+before, coldAfter+after, coldDaemon+daemon
		cpu := idleCPU(b, e)
		idle += cpu
		b.Logf("idle: QEMU %.1f%% of a core", cpu)
		e.mustRun("stop", "--cold", "--timeout=5m")
		took = bareStart(b, e)
		bare += took
		b.Logf("the App's VM without its engine, cold start to Running: %s", took.Round(time.Millisecond))
		e.mustRun("delete", "--force", "--timeout=5m")
	}
	n := float64(b.N)
	b.ReportMetric(first.Seconds()/n, "s/first-start")
	b.ReportMetric(save.Seconds()/n, "s/save-stop")
	b.ReportMetric(resumed.Seconds()/n, "s/resumed-start")
	b.ReportMetric(woken.Seconds()/n, "s/woken-docker-ps")
	b.ReportMetric(cold.Seconds()/n, "s/cold-start")
	b.ReportMetric(bare.Seconds()/n, "s/bare-start")
	b.ReportMetric(cold.Seconds()/bare.Seconds(), "cold/bare")
	b.ReportMetric(resumed.Seconds()/cold.Seconds(), "resumed/cold")
	b.ReportMetric(woken.Seconds()/cold.Seconds(), "woken/cold")
	b.ReportMetric(save.Seconds()/cold.Seconds(), "save/cold")
	b.ReportMetric(idle/n, "%cpu/idle")
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
	b.ReportMetric(ms(firstBefore), "ms/first-before-boot")
	b.ReportMetric(ms(firstAfter), "ms/first-after-boot")
	b.ReportMetric(ms(firstDaemon), "ms/first-daemon-after-boot")
	b.ReportMetric(ms(resumedBefore), "ms/resumed-before-boot")
	b.ReportMetric(ms(resumedAfter), "ms/resumed-after-boot")
	b.ReportMetric(ms(resumedDaemon), "ms/resumed-daemon-after-boot")
	b.ReportMetric(ms(coldBefore), "ms/cold-before-boot")
	b.ReportMetric(ms(coldAfter), "ms/cold-after-boot")
	b.ReportMetric(ms(coldDaemon), "ms/cold-daemon-after-boot")
}

// bareStart times a cold start of the App's VM without its container
// engine: the App's own template (image, kernel, sizes, shared folders),
// less the engine's unit on the kernel command line, its provision script
// and its socket's forward, as a VM of its own, started through 'paddock vm
// start' after a first boot and a cold stop. BenchmarkVMStartToRunning
// holds such a start within a few percent of Lima's own start of the same
// instance. The VM is deleted before it returns.
func bareStart(b *testing.B, e *env) time.Duration {
	b.Helper()
	var vm resource.VM
	if err := json.Unmarshal([]byte(e.mustRun("vm", "get", resource.AppName, "-n", resource.DefaultAppNamespace, "-o", "json")), &vm); err != nil {
		b.Fatal(err)
	}
	var cm resource.ConfigMap
	if err := json.Unmarshal([]byte(e.mustRun("get", "configmap", vm.Spec.TemplateRef, "-n", resource.DefaultAppNamespace, "-o", "json")), &cm); err != nil {
		b.Fatal(err)
	}
	var tmpl map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data[resource.TemplateKey]), &tmpl); err != nil {
		b.Fatal(err)
	}
	wants := regexp.MustCompile(` ?systemd\.wants=\S+`)
	for _, img := range tmpl["images"].([]any) {
		if k, ok := img.(map[string]any)["kernel"].(map[string]any); ok {
			k["cmdline"] = wants.ReplaceAllString(k["cmdline"].(string), "")
		}
	}
	delete(tmpl, "provision")
	delete(tmpl, "portForwards")
	tmpl["disk"] = "8GiB"
	out, err := yaml.Marshal(tmpl)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "bare.yaml")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		b.Fatal(err)
	}
	e.mustRun("vm", "create", "bare", "--template", file, "--start", "--timeout=10m")
	e.mustRun("vm", "stop", "bare", "--cold", "--timeout=5m")
	t0 := time.Now()
	e.mustRun("vm", "start", "bare", "--timeout=10m")
	took := time.Since(t0)
	e.mustRun("vm", "delete", "bare", "--timeout=5m")
	return took
}

// idleCPU is the share of a host core that the App's QEMU takes while the
// App idles: over 30 s, after the minute and a half in which the guest
// settles, Lima's guest agent among it (it reads the firewall for a minute
// after the engine's start last changed it).
func idleCPU(b *testing.B, e *env) float64 {
	b.Helper()
	pid := e.qemuPID(filepath.Base(filepath.Dir(appEventLog(b, e))))
	time.Sleep(90 * time.Second)
	c0 := cpuSeconds(b, pid)
	time.Sleep(30 * time.Second)
	return (cpuSeconds(b, pid) - c0) / 30 * 100
}

// appEventLog is the host agent's event log of the App's VM, the one VM of
// the benchmark's Lima home.
func appEventLog(b *testing.B, e *env) string {
	b.Helper()
	logs, _ := filepath.Glob(filepath.Join(e.path("lima_home"), "*", filenames.HostAgentStdoutLog))
	if len(logs) != 1 {
		b.Fatalf("the App's host agent event log: found %v", logs)
	}
	return logs[0]
}
