package tray

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleWindow is how long BenchmarkTrayIdle watches the idle tray;
// PADDOCK_TRAY_IDLE (a Go duration) changes it.
const idleWindow = 60 * time.Second

// BenchmarkTrayIdle runs the real tray as TestTrayEndToEnd does (Xvfb, a
// private D-Bus session bus, a StatusNotifierWatcher, a real daemon), lets
// it settle on its menu, and then leaves it alone: in a build with the
// settings window and in the packages' static build. It reports the context
// switches of all the tray's threads over the idle window, scaled to 60 s
// (each is a wakeup), and the tray's resident memory at the end. The figures
// are for reading, not asserted.
//
//	PADDOCK_E2E=1 go test -run XXX -bench TrayIdle -benchtime 1x ./app/tray/
func BenchmarkTrayIdle(b *testing.B) {
	requireE2E(b, "a C compiler", "Xvfb", "dbus-daemon")
	window := idleWindow
	if v := os.Getenv("PADDOCK_TRAY_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("PADDOCK_TRAY_IDLE=%q is no duration", v)
		}
		window = d
	}
	b.Run("build=cgo+tray", func(b *testing.B) { benchIdle(b, window, withSettings) })
	b.Run("build=static", func(b *testing.B) { benchIdle(b, window, withoutSettings) })
}

// benchIdle measures the idle tray of one build of paddock.
func benchIdle(b *testing.B, window time.Duration, settings bool) {
	e := newE2E(b, 2*time.Minute+time.Duration(b.N)*(window+10*time.Second), settings)
	e.startDaemon()
	tray, m, _ := e.startTray()
	m.awaitStatus("Stopped")
	time.Sleep(2 * time.Second) // start-up's last work

	b.ResetTimer()
	var switches, rss float64
	for range b.N {
		before := contextSwitches(b, tray.Process.Pid)
		time.Sleep(window)
		switches += float64(contextSwitches(b, tray.Process.Pid)-before) * float64(time.Minute) / float64(window)
		rss += float64(residentKiB(b, tray.Process.Pid)) / 1024
	}
	b.StopTimer()
	b.ReportMetric(switches/float64(b.N), "ctxsw/60s")
	b.ReportMetric(rss/float64(b.N), "MiB-RSS")
	b.ReportMetric(0, "ns/op")
}

// contextSwitches sums the voluntary and involuntary context switches of
// every thread of process pid. A thread that ended meanwhile takes its
// count with it, so a difference is a lower bound.
func contextSwitches(b *testing.B, pid int) int64 {
	b.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		b.Fatalf("the tray's threads: %v", err)
	}
	var n int64
	for _, status := range tasks {
		for k, v := range statusFields(status) {
			if k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches" {
				c, _ := strconv.ParseInt(v, 10, 64)
				n += c
			}
		}
	}
	return n
}

// residentKiB is process pid's resident memory.
func residentKiB(b *testing.B, pid int) int64 {
	b.Helper()
	v, ok := statusFields(fmt.Sprintf("/proc/%d/status", pid))["VmRSS"]
	if !ok {
		b.Fatal("no VmRSS for the tray")
	}
	kib, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		b.Fatalf("VmRSS %q: %v", v, err)
	}
	return kib
}

// statusFields reads a /proc status file's "Key:\tvalue" lines; a thread
// that ended meanwhile has none.
func statusFields(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if k, v, ok := strings.Cut(lines.Text(), ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}
