package tray

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/app/icon"
	"paddock.dev/paddock/app/internal/daemontest"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
)

// recordingHost stands in for the desktop's tray, which the end-to-end
// test reaches over D-Bus: it keeps the last menu and icon Fyne was given.
type recordingHost struct {
	mu   sync.Mutex
	menu *fyne.Menu
	icon fyne.Resource
}

// SetSystemTrayMenu keeps a copy: the tray reuses its *fyne.Menu.
func (h *recordingHost) SetSystemTrayMenu(m *fyne.Menu) {
	shown := *m
	shown.Items = slices.Clone(m.Items)
	h.mu.Lock()
	h.menu = &shown
	h.mu.Unlock()
}

func (h *recordingHost) SetSystemTrayIcon(r fyne.Resource) {
	h.mu.Lock()
	h.icon = r
	h.mu.Unlock()
}

// notingApp is Fyne's test app, keeping every notification.
type notingApp struct {
	fyne.App
	notes chan *fyne.Notification
}

func (a *notingApp) SendNotification(n *fyne.Notification) { a.notes <- n }

type fixture struct {
	t      *testing.T
	d      *daemontest.Daemon
	tray   *Tray
	host   *recordingHost
	app    *notingApp
	cancel context.CancelFunc
}

func newFixture(t *testing.T) *fixture {
	d := daemontest.New(t)
	d.Start()
	a := &notingApp{App: test.NewTempApp(t), notes: make(chan *fyne.Notification, 10)}
	h := &recordingHost{}
	ctx, cancel := context.WithCancel(context.Background())
	tr := newTray(ctx, a, h, Options{
		Client:        d.Client(),
		Paths:         instance.Paths{Socket: d.Socket, LogDir: t.TempDir()},
		DockerContext: "paddock",
		Log:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	done := make(chan struct{})
	go func() { tr.follow(); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &fixture{t: t, d: d, tray: tr, host: h, app: a, cancel: cancel}
}

// item returns the shown menu's item labelled label, searching submenus.
func item(m *fyne.Menu, label string) *fyne.MenuItem {
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
		if it.ChildMenu != nil {
			if found := item(it.ChildMenu, label); found != nil {
				return found
			}
		}
	}
	return nil
}

// await waits until the tray shows a menu whose first line is status.
func (f *fixture) await(status string) *fyne.Menu {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.host.mu.Lock()
		m := f.host.menu
		f.host.mu.Unlock()
		if m != nil && m.Items[0].Label == status {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatalf("the tray never showed %q", status)
	return nil
}

func (f *fixture) app0() *resource.App {
	f.t.Helper()
	obj, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName)
	if err != nil {
		f.t.Fatal(err)
	}
	return obj.(*resource.App)
}

// awaitApp waits until the App exists and ok accepts it, and returns it.
func (f *fixture) awaitApp(ok func(*resource.App) bool) *resource.App {
	f.t.Helper()
	for range 1000 {
		obj, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName)
		if err == nil && ok(obj.(*resource.App)) {
			return obj.(*resource.App)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatal("no App was made, or not as expected")
	return nil
}

// setStatus plays the App controller: it writes the App's conditions.
func (f *fixture) setStatus(conds ...metav1.Condition) {
	f.t.Helper()
	ctx := context.Background()
	gen := f.app0().Metadata.Generation
	_, err := controller.UpdateStatus(ctx, f.d.Store, resource.Key{Kind: "App", Name: resource.AppName}, func(a *resource.App) (bool, error) {
		for _, c := range conds {
			resource.SetCondition(&a.Status.Conditions, gen, c)
		}
		return true, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func cond(t, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
}

func TestStartFromTheMenu(t *testing.T) {
	f := newFixture(t)
	m := f.await("Stopped")
	if f.host.icon != icon.For(menu.IconStopped) {
		t.Errorf("icon %v, want the stopped one", f.host.icon.Name())
	}
	// A disabled item clicked anyway (D-Bus allows it) does nothing.
	item(m, menu.LabelStop).Action()
	item(m, menu.LabelStart).Action()
	m = f.await("Starting… creating the VM")
	if !f.app0().Spec.Running {
		t.Fatal("Start did not set spec.running")
	}
	if item(m, menu.LabelStart).Disabled == false || item(m, menu.LabelStop).Disabled {
		t.Errorf("after Start: Start enabled %v, Stop enabled %v", !item(m, menu.LabelStart).Disabled, !item(m, menu.LabelStop).Disabled)
	}

	f.setStatus(cond(resource.AppCreated, "True", "Created", ""), cond(resource.AppRunning, "True", "Started", ""),
		cond(resource.AppContainerEngineReady, "True", "Connected", ""), cond(resource.AppSettled, "True", "Running", ""))
	m = f.await("Running — moby, 2 CPUs, 4 GiB")
	if n := <-f.app.notes; n.Title != "Paddock is running" || n.Content != "moby, 2 CPUs, 4 GiB" {
		t.Errorf("notification %q: %q", n.Title, n.Content)
	}
	if f.host.icon != icon.For(menu.IconRunning) {
		t.Errorf("icon %v, want the running one", f.host.icon.Name())
	}
	item(m, menu.LabelCopyContext).Action()
	for i := 0; i < 500 && f.app.Clipboard().Content() == ""; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := f.app.Clipboard().Content(); got != "docker context use paddock" {
		t.Errorf("clipboard %q after Copy Docker Context", got)
	}

	item(m, menu.LabelStop).Action()
	f.await("Stopping…")
	f.setStatus(cond(resource.AppRunning, "False", resource.ReasonStartFailed, "qemu: cannot allocate memory"))
	f.await("Failed: qemu: cannot allocate memory")
	if n := <-f.app.notes; n.Title != "Paddock failed" || n.Content != "qemu: cannot allocate memory" {
		t.Errorf("notification %q: %q", n.Title, n.Content)
	}

	f.d.Stop()
	m = f.await(menu.StatusDaemonDown)
	if item(m, menu.LabelStartDaemon) == nil || item(m, menu.LabelStart) != nil {
		t.Errorf("daemon down: %v", m.Items)
	}
	f.d.Start()
	f.await("Failed: qemu: cannot allocate memory")
}

func TestDisabledClickDoesNothing(t *testing.T) {
	f := newFixture(t)
	m := f.await("Stopped")
	item(m, menu.LabelStop).Action()
	item(m, menu.LabelRestart).Action()
	time.Sleep(100 * time.Millisecond)
	if _, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName); !resource.IsNotFound(err) {
		t.Fatalf("a disabled item's click reached the daemon: %v", err)
	}
}

// awaitText waits until a label, updated from the tray's follower, shows
// text.
func awaitText(t *testing.T, l interface{ Visible() bool }, text string) {
	t.Helper()
	label := l.(*widget.Label)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var got string
		fyne.DoAndWait(func() { got = label.Text })
		if got == text {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("label shows %q, want %q", label.Text, text)
}
