package tray

import (
	"os"
	"testing"
	"time"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
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
		before := paddocktest.ContextSwitches(b, tray.Process.Pid)
		time.Sleep(window)
		switches += float64(paddocktest.ContextSwitches(b, tray.Process.Pid)-before) * float64(time.Minute) / float64(window)
		rss += float64(paddocktest.StatusKiB(b, tray.Process.Pid, "VmRSS")) / 1024
	}
	b.StopTimer()
	b.ReportMetric(switches/float64(b.N), "ctxsw/60s")
	b.ReportMetric(rss/float64(b.N), "MiB-RSS")
	b.ReportMetric(0, "ns/op")
}
