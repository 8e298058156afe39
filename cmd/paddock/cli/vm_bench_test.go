//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/hostagent/events"
	limainstance "github.com/lima-vm/lima/pkg/instance"
	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima"
)

// Start to Running through Paddock (`paddock vm start`, which asks the API
// to start the VM and waits for its Running condition: the controller, the
// driver and the host agent) against Lima's own library start of the same
// instance (limainstance.Start, which runs the same host agent and waits for
// it to report Running), alternately, after a first boot that is not
// measured. The daemon is stopped while Lima starts and stops the
// instance, so that no controller acts on it meanwhile.
//
//	PADDOCK_E2E=1 go test -run XXX -bench VMStartToRunning ./cmd/paddock/cli
func BenchmarkVMStartToRunning(b *testing.B) {
	tmpl := vmTemplate(b)
	ctx := context.Background()
	// Lima's start finds the guest agent beside the running program, which
	// here is this test binary.
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := lima.BuildGuestAgent(ctx, "go", "../../..", filepath.Dir(self), limayaml.X8664); err != nil {
		b.Fatal(err)
	}
	// Go runs a benchmark once with b.N = 1 before the measured run, and a
	// process drives one Lima home (the driver below refuses a second):
	// every run uses this one, which TestMain removes.
	if benchHome == "" {
		dir, err := os.MkdirTemp("", "pd")
		if err != nil {
			b.Fatal(err)
		}
		benchHome = dir
	}
	e := &env{t: b, home: benchHome, instance: "default"}
	file := filepath.Join(e.home, "debian.yaml")
	if err := os.WriteFile(file, []byte(tmpl), 0o644); err != nil {
		b.Fatal(err)
	}
	d := e.serve()
	e.mustRun("vm", "create", "bench", "--template", file, "--start", "--timeout=10m")
	e.mustRun("vm", "stop", "bench", "--cold") // both starts boot: Lima's own has no saved state to resume
	// Lima's start passes the host agent this process's environment: it
	// gets what Paddock's driver would give it.
	driver := &lima.Driver{LimaHome: e.path("lima_home"), Executable: paddockBin, Logger: logging.New(os.Stderr, slog.LevelWarn)}
	env, err := driver.HostAgentEnv(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}

	// Lima's start runs `LAUNCHER hostagent --pidfile ... NAME`, as
	// limactl does; Paddock's host agent is paddock-lima's, which takes
	// the same flags.
	launcher, err := lima.FindHelper(paddockBin)
	if err != nil {
		b.Fatal(err)
	}

	eventLog := filepath.Join(e.path("lima_home"), "bench", filenames.HostAgentStdoutLog)
	var viaPaddock, viaLima, bootPaddock, bootLima time.Duration
	for range b.N {
		t0 := time.Now()
		e.mustRun("vm", "start", "bench", "--timeout=10m")
		viaPaddock += time.Since(t0)
		bootPaddock += hostAgentBoot(b, eventLog)
		e.mustRun("vm", "stop", "bench", "--cold") // both starts boot: Lima's own has no saved state to resume
		d.stop(b, syscall.SIGTERM)

		inst, err := limastore.Inspect("bench")
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		// Lima ends the host agent with its context: it gets none.
		if err := limainstance.Start(context.Background(), inst, launcher, false); err != nil {
			b.Fatalf("Lima's start: %v\n%s", err, hostAgentLogTail(inst.Dir))
		}
		viaLima += time.Since(t0)
		bootLima += hostAgentBoot(b, eventLog)
		if inst, err = limastore.Inspect("bench"); err != nil {
			b.Fatal(err)
		}
		if err := limainstance.StopGracefully(ctx, inst, false); err != nil {
			b.Fatalf("Lima's stop: %v\n%s", err, hostAgentLogTail(inst.Dir))
		}
		d = e.serve()
	}
	e.mustRun("vm", "delete", "bench")
	d.stop(b, syscall.SIGTERM)
	n := float64(b.N)
	b.ReportMetric(viaPaddock.Seconds()/n, "s/start-paddock")
	b.ReportMetric(viaLima.Seconds()/n, "s/start-lima")
	b.ReportMetric(viaPaddock.Seconds()/viaLima.Seconds(), "paddock/lima")
	// What each adds to the host agent's own boot, without the guest's
	// variance (Lima's in-guest checks poll every 3 s).
	b.ReportMetric(float64((viaPaddock-bootPaddock).Milliseconds())/n, "ms/overhead-paddock")
	b.ReportMetric(float64((viaLima-bootLima).Milliseconds())/n, "ms/overhead-lima")
}

// hostAgentLogTail is the end of the host agent's log in the instance
// directory dir, which says why a start or stop failed; the benchmark's
// home is gone once it ends.
func hostAgentLogTail(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, filenames.HostAgentStderrLog))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-40):]
	return "the host agent's log ends:\n" + strings.Join(lines, "\n")
}

// hostAgentBoot reads a host agent's event log: the time from its first
// event to the one that reports the VM running.
func hostAgentBoot(b *testing.B, path string) time.Duration {
	b.Helper()
	first, running := hostAgentTimes(b, path)
	return running.Sub(first)
}

// hostAgentTimes reads a host agent's event log: when its first event was
// written, and the one that reports the VM running.
func hostAgentTimes(b *testing.B, path string) (first, running time.Time) {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for {
		var ev events.Event
		if err := dec.Decode(&ev); err != nil {
			b.Fatalf("%s: no event reports the VM running: %v", path, err)
		}
		if first.IsZero() {
			first = ev.Time
		}
		if ev.Status.Running {
			return first, ev.Time
		}
	}
}
