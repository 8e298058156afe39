//go:build linux

package cli

import (
	"os/exec"
	"testing"
	"time"
)

// The App's figures: 'paddock start' on a fresh instance until Settled and
// 'docker info' answering through the instance's context; a second start
// of the stopped App; 'paddock stop'. Each iteration boots twice.
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
	var first, second, stop time.Duration
	for range b.N {
		t0 := time.Now() // the App is made with its defaults

		e.mustRun("start", "--timeout=10m")
		dockerInfo()
		first += time.Since(t0)

		t0 = time.Now()
		e.mustRun("stop", "--timeout=5m")
		stop += time.Since(t0)

		t0 = time.Now()
		e.mustRun("start", "--timeout=10m")
		dockerInfo()
		second += time.Since(t0)
		e.mustRun("delete", "--timeout=5m")
	}
	n := float64(b.N)
	b.ReportMetric(first.Seconds()/n, "s/first-start")
	b.ReportMetric(second.Seconds()/n, "s/second-start")
	b.ReportMetric(stop.Seconds()/n, "s/stop")
}
