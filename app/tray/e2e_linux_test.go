package tray

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/app/settings"
	"paddock.dev/paddock/core/resource"
)

// TestTrayEndToEnd runs the real tray against a real daemon on a real X
// server (Xvfb) and a private D-Bus session bus, and uses its menu the way
// a desktop's tray does, over D-Bus, where it also receives the tray's
// notifications. No VM boots: the App's image is broken, so the App's
// start fails at once with that reason, which is what the status line
// must then say. Paddock is built as the packages install it: the static
// paddock runs the tray, and Settings… opens the window of the cgo
// paddock-settings in ../lib/paddock from it.
//
// go test -artifacts keeps the settings window's screenshot.
func TestTrayEndToEnd(t *testing.T) {
	requireE2E(t, "a C compiler", "Xvfb", "dbus-daemon", "xdotool", "import")
	e := newE2E(t, e2eTimeout, packaged)
	e.startDaemon()
	tray, m, notes := e.startTray()

	items := m.awaitStatus("Stopped")
	// The menu before the daemon answered, then the daemon's: one signal
	// each (fyne.io/systray's menu sent 17).
	if n := m.layouts.Load(); n > 2 {
		t.Errorf("%d LayoutUpdated signals as the tray started, want at most 2", n)
	}
	t.Logf("LayoutUpdated signals as the tray started: %d", m.layouts.Load())
	if it, _ := find(items, menu.LabelStop); it.Enabled {
		t.Errorf("Stop enabled with no App: %v", labels(items))
	}
	release := holdFile(t, e.template)
	m.click(items, menu.LabelStart)
	e.awaitApp(func(app *resource.App) bool { return app.Spec.Running })
	// The status line follows the App from Starting to where the start
	// ends: here, once the daemon has read the image's template, a
	// failure to get the guest image.
	items = m.awaitStatus("Starting… ")
	if it, _ := find(items, menu.LabelStart); it.Enabled {
		t.Errorf("Start enabled while the App starts: %v", labels(items))
	}
	release()
	items = m.awaitStatus("Failed: ")
	if !strings.Contains(items[0].Label, "guest image") {
		t.Errorf("the failure does not say why: %q", items[0].Label)
	}
	if body := notes.await(t, "Paddock failed"); !strings.Contains(body, "template.yaml") {
		t.Errorf("the failure's notification does not say why: %q", body)
	}
	if it, _ := find(items, menu.LabelStop); !it.Enabled {
		t.Errorf("Stop disabled after a failed start: %v", labels(items))
	}

	e.screenshotSettings(m, items)
	// The window is paddock-settings', which the static paddock lacks.
	if got := e.windowProgram(e.settingsWindow()); got != e.settingsBin {
		t.Errorf("the settings window is %s's, want %s's", got, e.settingsBin)
	}
	// Settings… again raises the open window rather than opening another.
	m.click(m.awaitStatus("Failed: "), menu.LabelSettings)
	time.Sleep(2 * time.Second) // time enough for a second window
	if windows := e.settingsWindows(); len(windows) != 1 {
		t.Errorf("%d settings windows after Settings… twice", len(windows))
	}

	before := m.awaitStatus("Failed: ")
	e.stopDaemon()
	items = m.awaitStatus(menu.StatusDaemonDown)
	m.click(items, menu.LabelStartDaemon)
	items = m.awaitStatus("Failed: ")
	e.adoptDaemon()
	// The menu the daemon's return brings back is the one it took away,
	// with the same ids.
	for _, label := range []string{menu.LabelStart, menu.LabelStop, menu.LabelSettings, menu.LabelMachines, menu.LabelQuit} {
		was, _ := find(before, label)
		if now, _ := find(items, label); now.ID != was.ID {
			t.Errorf("%s was item %d before the daemon's restart, %d after", label, was.ID, now.ID)
		}
	}
	m.click(items, menu.LabelStop)
	e.awaitApp(func(app *resource.App) bool { return !app.Spec.Running })
	// Still unable to make its VM, the App says so while stopped too,
	// and the Stop's end is the same failure; Start is offered again.
	notes.await(t, "Paddock failed")
	items = m.await("Start enabled", func(items []menuItem) bool {
		it, _ := find(items, menu.LabelStart)
		return it.Enabled && strings.HasPrefix(items[0].Label, "Failed: ")
	})
	// A second Start fails as the first did, and says so again.
	m.click(items, menu.LabelStart)
	if body := notes.await(t, "Paddock failed"); !strings.Contains(body, "template.yaml") {
		t.Errorf("the second failure's notification does not say why: %q", body)
	}
	items = m.await("Stop enabled", func(items []menuItem) bool {
		it, _ := find(items, menu.LabelStop)
		return it.Enabled && strings.HasPrefix(items[0].Label, "Failed: ")
	})

	m.click(items, menu.LabelQuit)
	if err := e.wait(tray, 10*time.Second); err != nil {
		t.Fatalf("the tray did not quit cleanly: %v", err)
	}
	if err := e.client.Ready(e.ctx); err != nil {
		t.Fatalf("quitting the tray stopped the daemon: %v", err)
	}
	// The settings window, still open, closes with the tray.
	for deadline := time.Now().Add(10 * time.Second); e.settingsWindow() != ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the settings window stayed open after Quit")
		}
	}
}

// requireE2E skips t unless PADDOCK_E2E=1, and then fails it when a tool
// it needs is missing ("a C compiler" stands for cgo's).
func requireE2E(t testing.TB, tools ...string) {
	t.Helper()
	if os.Getenv("PADDOCK_E2E") != "1" {
		t.Skipf("end-to-end: set PADDOCK_E2E=1 (needs %s)", strings.Join(tools, ", "))
	}
	for _, tool := range tools {
		if tool == "a C compiler" {
			continue // the build says so
		}
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: packaging/ci-deps.sh installs it", tool)
		}
	}
}

// startTray plays a desktop session on the private bus (a
// StatusNotifierWatcher and a notification server), starts the tray in it
// and waits until the tray registered. It returns the tray's process, its
// menu and the notifications it sends.
func (e *e2e) startTray() (*exec.Cmd, trayMenu, *notifications) {
	e.t.Helper()
	watcher, bus := startWatcher(e.t, e.busAddress)
	notes := serveNotifications(e.t, bus)
	layouts := countLayouts(e.t, bus)
	tray := e.start("tray")
	select {
	case <-watcher.registered:
	case <-time.After(30 * time.Second):
		e.t.Fatal("the tray never registered with the StatusNotifierWatcher")
	}
	dest := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", tray.Process.Pid)
	m := trayMenu{t: e.t, obj: bus.Object(dest, menuPath), item: bus.Object(dest, itemPath), layouts: layouts}
	return tray, m, notes
}

// e2e holds the processes of one end-to-end run.
type e2e struct {
	t          testing.TB
	ctx        context.Context
	bin        string
	env        []string
	paths      map[string]string
	busAddress string
	daemon     *exec.Cmd
	daemonPID  int // a daemon the tray started, detached
	// settingsBin is the packaged build's paddock-settings, "" in others.
	settingsBin string
	// template is the App's image's template.yaml, which is not YAML.
	template string
	client   *client.Client
}

// e2eTimeout bounds an end-to-end test, once paddock is built.
const e2eTimeout = 2 * time.Minute

// build is how paddock is built for an end-to-end run.
type build int

const (
	// withSettings: with cgo and the tray tag, so that the binary has the
	// settings window itself.
	withSettings build = iota
	// withoutSettings: without cgo, as the packages build paddock, and
	// alone, so that Settings… says how to get the window.
	withoutSettings
	// packaged: as the packages install it, the static paddock in bin/ and
	// the cgo paddock-settings in lib/paddock/, which Settings… runs.
	packaged
)

// newE2E builds paddock as b says, and then gives the run timeout.
func newE2E(t testing.TB, timeout time.Duration, b build) *e2e {
	dir, err := os.MkdirTemp("", "pdtray") // short: socket paths are length-limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &e2e{t: t, bin: filepath.Join(dir, "bin", "paddock")}
	switch b {
	case withSettings:
		goBuild(t, true, e.bin)
	case withoutSettings:
		goBuild(t, false, e.bin)
	case packaged:
		goBuild(t, false, e.bin)
		e.settingsBin = filepath.Join(dir, "lib", "paddock", "paddock-settings")
		goBuild(t, true, e.settingsBin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	e.ctx = ctx
	display := startXvfb(t, dir)
	e.busAddress = startBus(t, dir)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "PADDOCK_") &&
			!strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "DBUS_") && !strings.HasPrefix(kv, "LANG=") {
			e.env = append(e.env, kv)
		}
	}
	images := filepath.Join(dir, "no-images")
	// The App's image is a built image directory whose template is not
	// YAML, so that its start fails at once, offline, with that reason.
	broken := filepath.Join(images, "broken")
	e.env = append(e.env, "HOME="+filepath.Join(dir, "home"), "PADDOCK_INSTANCE=traye2e", "PADDOCK_IMAGE_CACHE="+images,
		"PADDOCK_APP_IMAGE="+broken,
		"DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+e.busAddress, "LANG=en_US.UTF-8")
	for _, d := range []string{filepath.Join(dir, "home"), broken} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.template = filepath.Join(broken, "template.yaml")
	if err := os.WriteFile(e.template, []byte("images: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.command("service", "paths", "-o", "shell").Output()
	if err != nil {
		t.Fatalf("service paths: %v", err)
	}
	e.paths = parseShell(string(out))
	e.client = client.NewUnix(e.paths["socket"])
	t.Cleanup(e.killDaemons)
	return e
}

// buildTimeout bounds a build of paddock: a first cgo build compiles GLFW
// and OpenGL's bindings, which took 8 minutes on 2 cores.
const buildTimeout = 20 * time.Minute

// goBuild builds paddock into out, with cgo and the tray tag (the settings
// window) or without cgo, with -trimpath as packaging/build.sh and .ci/run
// build it, so that the three share the build cache.
func goBuild(t testing.TB, window bool, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	args, cgo := []string{"build", "-trimpath", "-o", out}, "CGO_ENABLED=0"
	if window {
		args, cgo = append(args, "-tags", "tray"), "CGO_ENABLED=1"
	}
	build := exec.CommandContext(ctx, "go", append(args, "paddock.dev/paddock/cmd/paddock")...)
	build.Env = append(os.Environ(), cgo)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, out)
	}
}

// parseShell reads `export KEY='value'` lines.
func parseShell(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if ok {
			m[strings.ToLower(strings.TrimPrefix(k, "PADDOCK_"))] = strings.Trim(v, "'")
		}
	}
	return m
}

func (e *e2e) command(args ...string) *exec.Cmd {
	cmd := exec.CommandContext(e.ctx, e.bin, args...)
	cmd.Env = e.env
	return cmd
}

// start runs a paddock command in the background, its output in the
// test's log on failure.
func (e *e2e) start(args ...string) *exec.Cmd {
	cmd := e.command(args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			stop(cmd, e.t.Failed())
		}
		if e.t.Failed() {
			e.t.Logf("paddock %s:\n%s", strings.Join(args, " "), out.String())
		}
	})
	return cmd
}

// stop ends a process the test left running. After a failure it first
// asks for a goroutine dump (what a Go program prints on SIGQUIT), so that
// the log shows where a process that stopped responding was stuck.
func stop(cmd *exec.Cmd, dump bool) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	if dump {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
			return
		case <-time.After(5 * time.Second):
		}
	}
	cmd.Process.Kill()
	<-done
}

func (e *e2e) wait(cmd *exec.Cmd, within time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		return fmt.Errorf("still running after %s", within)
	}
}

func (e *e2e) startDaemon() {
	e.daemon = e.start("serve")
	for e.client.Ready(e.ctx) != nil {
		if e.ctx.Err() != nil {
			e.t.Fatal("the daemon never became ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopDaemon stops the daemon as its service manager would.
func (e *e2e) stopDaemon() {
	e.daemon.Process.Signal(syscall.SIGTERM)
	if err := e.wait(e.daemon, 30*time.Second); err != nil {
		e.t.Fatalf("the daemon did not stop: %v", err)
	}
}

// adoptDaemon notes the daemon the tray started, to stop it at the end.
func (e *e2e) adoptDaemon() {
	data, err := os.ReadFile(e.paths["pid_file"])
	if err != nil {
		e.t.Fatalf("the daemon the tray started left no pid file: %v", err)
	}
	fmt.Sscan(string(data), &e.daemonPID)
}

func (e *e2e) killDaemons() {
	if e.daemonPID > 0 {
		syscall.Kill(e.daemonPID, syscall.SIGTERM)
		for i := 0; i < 300 && syscall.Kill(e.daemonPID, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// awaitApp waits until the daemon's App satisfies ok.
func (e *e2e) awaitApp(ok func(*resource.App) bool) {
	e.t.Helper()
	for {
		obj, err := e.client.Get(e.ctx, resource.KindApp, "", resource.AppName)
		if err == nil && ok(obj.(*resource.App)) {
			return
		}
		if e.ctx.Err() != nil {
			e.t.Fatalf("the App never got there: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshotSettings opens the settings window from the menu, takes its
// picture from the X server, and checks that it shows something.
func (e *e2e) screenshotSettings(m trayMenu, items []menuItem) {
	m.click(items, menu.LabelSettings)
	var wid string
	for deadline := time.Now().Add(20 * time.Second); wid == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		wid = e.settingsWindow()
	}
	if wid == "" {
		e.t.Fatal("Settings… opened no visible window")
	}
	time.Sleep(time.Second) // the first frames
	path := filepath.Join(e.t.ArtifactDir(), "settings.png")
	if out, err := e.x("import", "-window", wid, path).CombinedOutput(); err != nil {
		e.t.Fatalf("screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		e.t.Fatal(err)
	}
	if colors, share := inked(img); colors < 16 || share < 0.02 {
		e.t.Fatalf("the settings window looks blank: %d colours, %.1f%% of it not background (%s)", colors, 100*share, path)
	}
	e.t.Logf("settings window: %s", path)
}

// settingsWindow is the X window id of a visible settings window, ""
// when there is none.
func (e *e2e) settingsWindow() string {
	if windows := e.settingsWindows(); len(windows) > 0 {
		return windows[0]
	}
	return ""
}

// settingsWindows are the X window ids of the visible settings windows.
func (e *e2e) settingsWindows() []string {
	out, _ := e.x("xdotool", "search", "--onlyvisible", "--name", "^"+settings.Title+"$").Output()
	return strings.Fields(string(out))
}

// windowProgram is the program of the process that shows the X window
// wid, by the pid the window carries (_NET_WM_PID, which GLFW sets).
func (e *e2e) windowProgram(wid string) string {
	out, err := e.x("xdotool", "getwindowpid", wid).Output()
	if err != nil {
		e.t.Fatalf("xdotool getwindowpid %s: %v", wid, err)
	}
	exe, err := os.Readlink("/proc/" + strings.TrimSpace(string(out)) + "/exe")
	if err != nil {
		e.t.Fatal(err)
	}
	return exe
}

// x runs an X client against the test's X server.
func (e *e2e) x(name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(e.ctx, name, args...)
	cmd.Env = e.env
	return cmd
}

// inked counts an image's colours and the share of its pixels that differ
// from the most common one, the background.
func inked(img image.Image) (int, float64) {
	counts := map[[4]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r, g, bl, a}]++
		}
	}
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	total := b.Dx() * b.Dy()
	return len(counts), float64(total-most) / float64(max(total, 1))
}

// holdFile makes the daemon's next read of the file at path wait until
// release is called, with the file's content then: it puts a FIFO in the
// file's place, which the test holds open. So the App's start stays where
// it reads its image's template (the App's reconcile), in Starting, for as
// long as the test looks at it. release writes the content into the FIFO
// and puts the file back, for later reads.
func holdFile(t testing.TB, path string) (release func()) {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := path + ".kept"
	if err := os.Rename(path, kept); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	// Opened for reading and writing, a FIFO opens at once, and a reader's
	// open does not wait for a writer either; the reader waits for data.
	fifo, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			// New reads find the file; a read already waiting gets the same
			// content from the FIFO, and its end once the FIFO is closed.
			if err := os.Rename(kept, path); err != nil {
				t.Error(err)
			}
			if _, err := fifo.Write(content); err != nil {
				t.Error(err)
			}
			fifo.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// startXvfb starts an X server on a free display and returns its name.
func startXvfb(t testing.TB, dir string) string {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	logFile, _ := os.Create(filepath.Join(dir, "xvfb.log"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// startBus starts a private D-Bus session bus and returns its address.
func startBus(t testing.TB, dir string) string {
	address := "unix:path=" + filepath.Join(dir, "bus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+address)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(dir, "bus")); err == nil {
			return address
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("dbus-daemon made no bus")
	return ""
}

// TestTrayStaticBuild runs the tray of a paddock built without cgo, as the
// packages build it, but without the packages' paddock-settings: the menu
// works as in any build, and Settings… says, in a notification, how to get
// the settings window that build lacks.
func TestTrayStaticBuild(t *testing.T) {
	requireE2E(t, "Xvfb", "dbus-daemon")
	e := newE2E(t, e2eTimeout, withoutSettings)
	e.startDaemon()
	tray, m, notes := e.startTray()
	items := m.awaitStatus("Stopped")
	m.awaitTooltip("Paddock: Stopped")
	m.click(items, menu.LabelSettings)
	if body := notes.await(t, "Paddock"); !strings.Contains(body, "built without the settings window") ||
		!strings.Contains(body, "paddock set cpus=4") {
		t.Errorf("Settings… in a build without the window: %q", body)
	}
	m.click(m.awaitStatus("Stopped"), menu.LabelQuit)
	if err := e.wait(tray, 10*time.Second); err != nil {
		t.Fatalf("the tray did not quit cleanly: %v", err)
	}
}
