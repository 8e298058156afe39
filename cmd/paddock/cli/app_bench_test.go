//go:build linux

package cli

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
)

// The App's figures: 'paddock start' on a fresh instance until Settled and
// 'docker info' answering through the instance's context; a second start
// of the stopped App; 'paddock stop'. Each iteration boots twice. What
// each start adds over the VM's own boot (the host agent's first event to
// its Running event) is the daemon's part (the CLI, the API, the App's and
// the VM's controllers, the wait for the engine) plus Lima's preparation
// before its host agent runs (the cidata disk), which Lima's own start
// makes too.
//
//	PADDOCK_E2E=1 go test -run XXX -bench AppStart -benchtime 1x ./cmd/paddock/cli
func BenchmarkAppStart(b *testing.B) {
	e := appEnv(b)
	if _, err := exec.LookPath("docker"); err != nil {
		b.Fatal("the App benchmark needs the docker CLI (packaging/ci-deps.sh installs docker.io)")
	}
	e.serve()
	b.Cleanup(func() { e.run("", "delete", "--timeout=3m") })
	dockerInfo := func() {
		cmd := exec.Command("docker", "--context", "paddock", "info", "--format", "{{.ServerVersion}}")
		cmd.Env = append(e.environ(), "DOCKER_HOST=")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("docker info: %v: %s", err, out)
		}
	}
	// start runs 'paddock start' and asks Docker; it returns how long that
	// took and how much of it was not the host agent's boot. Each figure is
	// logged as it is taken: a later step that fails (a guest that locks up
	// on a loaded host) does not lose it.
	start := func(which string) (took, over time.Duration) {
		t0 := time.Now()
		e.mustRun("start", "--timeout=10m")
		over = time.Since(t0) - hostAgentBoot(b, appEventLog(b, e))
		dockerInfo()
		took = time.Since(t0)
		b.Logf("%s start to Settled and docker info: %s, %s of it over the VM's boot", which, took.Round(time.Millisecond), over.Round(time.Millisecond))
		return took, over
	}
	var first, second, stop, firstOver, secondOver time.Duration
	for range b.N {
		took, over := start("first") // the App is made with its defaults
		first, firstOver = first+took, firstOver+over

		t0 := time.Now()
		e.mustRun("stop", "--timeout=5m")
		stop += time.Since(t0)
		b.Logf("stop: %s", time.Since(t0).Round(time.Millisecond))

		took, over = start("second")
		second, secondOver = second+took, secondOver+over
		e.mustRun("delete", "--timeout=5m")
	}
	n := float64(b.N)
	b.ReportMetric(first.Seconds()/n, "s/first-start")
	b.ReportMetric(second.Seconds()/n, "s/second-start")
	b.ReportMetric(stop.Seconds()/n, "s/stop")
	b.ReportMetric(float64(firstOver.Milliseconds())/n, "ms/first-over-boot")
	b.ReportMetric(float64(secondOver.Milliseconds())/n, "ms/second-over-boot")
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
