package tray

import (
	"os"
	"testing"
	"time"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
)

// idleWindow is how long BenchmarkTrayIdle watches the idle tray;
// PADDOCK_TRAY_IDLE (a Go duration) changes it.
const idleWindow = 60 * time.Second

// BenchmarkTrayIdle runs the real tray as TestTrayEndToEnd does (Xvfb, a
// private D-Bus session bus, a StatusNotifierWatcher, a real daemon), lets
// it settle on its menu, and then leaves it alone: first while the daemon
// runs (the tray holds its watch streams), then after the daemon stopped
// (the tray waits for the daemon's socket to reappear); in a build with
// the settings window and in the packages' static build. It reports the
// context switches of all the tray's threads over the idle window, scaled
// to 60 s (each is a wakeup), and the tray's resident memory at the end.
// The figures are for reading, not asserted.
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

// benchIdle measures the idle tray of one build of paddock, with the
// daemon up and then down.
func benchIdle(b *testing.B, window time.Duration, kind build) {
	e := newE2E(b, 2*time.Minute+2*(window+10*time.Second), kind)
	e.startDaemon()
	tray, m, _ := e.startTray()
	m.awaitStatus("Stopped")
	b.Run("daemon=up", func(b *testing.B) { measureIdle(b, tray.Process.Pid, window) })
	e.stopDaemon()
	m.awaitStatus(menu.StatusDaemonDown)
	b.Run("daemon=down", func(b *testing.B) { measureIdle(b, tray.Process.Pid, window) })
}

// measureIdle reports the context switches of process pid over window,
// scaled to 60 s, and its resident memory at the end.
func measureIdle(b *testing.B, pid int, window time.Duration) {
	time.Sleep(2 * time.Second) // the last change's work
	b.ResetTimer()
	var switches, rss float64
	for range b.N {
		before := paddocktest.ContextSwitches(b, pid)
		time.Sleep(window)
		switches += float64(paddocktest.ContextSwitches(b, pid)-before) * float64(time.Minute) / float64(window)
		rss += float64(paddocktest.StatusKiB(b, pid, "VmRSS")) / 1024
	}
	b.StopTimer()
	b.ReportMetric(switches/float64(b.N), "ctxsw/60s")
	b.ReportMetric(rss/float64(b.N), "MiB-RSS")
	b.ReportMetric(0, "ns/op")
}
