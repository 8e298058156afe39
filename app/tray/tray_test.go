package tray

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/app/icon"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/app/settings/link"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
)

// recordingHost stands in for the desktop's tray, which the end-to-end
// test reaches over D-Bus: it keeps the last menu and icon it was given.
type recordingHost struct {
	mu    sync.Mutex
	menu  []menu.Item
	click func(menu.Action)
	icon  []byte
	tip   string
	quit  bool
}

func (h *recordingHost) SetMenu(items []menu.Item, click func(menu.Action)) {
	h.mu.Lock()
	h.menu, h.click = items, click
	h.mu.Unlock()
}

func (h *recordingHost) SetIcon(png []byte) {
	h.mu.Lock()
	h.icon = png
	h.mu.Unlock()
}

func (h *recordingHost) Quit() {
	h.mu.Lock()
	h.quit = true
	h.mu.Unlock()
}

func (h *recordingHost) SetTooltip(text string) {
	h.mu.Lock()
	h.tip = text
	h.mu.Unlock()
}

// shownIcon is the icon on screen.
func (h *recordingHost) shownIcon() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.icon
}

// clickItem clicks the item labelled label in the menu on screen, as a
// tray host does, whether or not it is enabled.
func (h *recordingHost) clickItem(t *testing.T, label string) {
	t.Helper()
	h.mu.Lock()
	it, click := item(h.menu, label), h.click
	h.mu.Unlock()
	if it == nil {
		t.Fatalf("no item %q", label)
	}
	click(it.Action)
}

// recordingDesktop keeps what the tray asked of the desktop.
type recordingDesktop struct {
	notes     chan note
	mu        sync.Mutex
	clipboard string
	opened    string
}

func (d *recordingDesktop) Notify(title, body string) { d.notes <- note{title, body} }

func (d *recordingDesktop) CopyText(text string) error {
	d.mu.Lock()
	d.clipboard = text
	d.mu.Unlock()
	return nil
}

func (d *recordingDesktop) OpenDir(dir string) error {
	d.mu.Lock()
	d.opened = dir
	d.mu.Unlock()
	return nil
}

type fixture struct {
	t    *testing.T
	d    *paddocktest.Daemon
	tray *Tray
	host *recordingHost
	desk *recordingDesktop
}

func newFixture(t *testing.T) *fixture {
	d := paddocktest.NewDaemon(t)
	d.Start()
	h := &recordingHost{}
	desk := &recordingDesktop{notes: make(chan note, 10)}
	ctx, cancel := context.WithCancel(context.Background())
	// The programs, which no test here writes but the settings window's
	// test, are in different directories, as in a package.
	bin, lib := t.TempDir(), t.TempDir()
	tr := newTray(ctx, h, desk, Options{
		Client:             d.Client(),
		Paths:              instance.Paths{Socket: d.Socket, LogDir: t.TempDir()},
		Instance:           "test",
		Executable:         filepath.Join(bin, "paddock"),
		SettingsExecutable: filepath.Join(lib, "paddock-settings"),
		DockerContext:      "paddock",
		Log:                slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	done := make(chan struct{})
	go func() { tr.follow(); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &fixture{t: t, d: d, tray: tr, host: h, desk: desk}
}

// item returns the item labelled label, searching submenus.
func item(items []menu.Item, label string) *menu.Item {
	for i := range items {
		if items[i].Label == label {
			return &items[i]
		}
		if found := item(items[i].Children, label); found != nil {
			return found
		}
	}
	return nil
}

// await waits until the tray shows a menu whose first line is status.
func (f *fixture) await(status string) []menu.Item {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		f.host.mu.Lock()
		m := f.host.menu
		f.host.mu.Unlock()
		if m != nil && m[0].Label == status {
			return m
		}
	}
	f.t.Fatalf("the tray never showed %q", status)
	return nil
}

// click clicks an item of the menu on screen.
func (f *fixture) click(label string) {
	f.t.Helper()
	f.host.clickItem(f.t, label)
}

// awaitNote returns the next notification.
func (f *fixture) awaitNote() note {
	f.t.Helper()
	select {
	case n := <-f.desk.notes:
		return n
	case <-time.After(10 * time.Second):
		f.t.Fatal("no notification")
		return note{}
	}
}

func (f *fixture) app() *resource.App {
	f.t.Helper()
	obj, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName)
	if err != nil {
		f.t.Fatal(err)
	}
	return obj.(*resource.App)
}

func TestStartFromTheMenu(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	if !bytes.Equal(f.host.shownIcon(), icon.For(menu.IconStopped)) {
		t.Error("not the stopped icon")
	}
	// A disabled item clicked anyway (D-Bus allows it) does nothing.
	f.click(menu.LabelStop)
	f.click(menu.LabelStart)
	m := f.await("Starting… creating the VM")
	if !f.app().Spec.Running {
		t.Fatal("Start did not set spec.running")
	}
	if item(m, menu.LabelStart).Enabled || !item(m, menu.LabelStop).Enabled {
		t.Errorf("after Start: Start enabled %v, Stop enabled %v", item(m, menu.LabelStart).Enabled, item(m, menu.LabelStop).Enabled)
	}

	f.d.SetAppConditions(paddocktest.Condition(resource.AppCreated, "True", "Created", ""), paddocktest.Condition(resource.AppRunning, "True", "Started", ""),
		paddocktest.Condition(resource.AppContainerEngineReady, "True", "Connected", ""), paddocktest.Condition(resource.AppSettled, "True", "Running", ""))
	f.await("Running — moby, 2 CPUs, 4 GiB")
	if n := f.awaitNote(); n.title != "Paddock is running" || n.body != "moby, 2 CPUs, 4 GiB" {
		t.Errorf("notification %q: %q", n.title, n.body)
	}
	if !bytes.Equal(f.host.shownIcon(), icon.For(menu.IconRunning)) {
		t.Error("not the running icon")
	}
	f.host.mu.Lock()
	if f.host.tip != "Paddock: Running — moby, 2 CPUs, 4 GiB" {
		t.Errorf("tooltip %q, not the status line", f.host.tip)
	}
	f.host.mu.Unlock()
	f.click(menu.LabelCopyContext)
	f.click(menu.LabelShowLogs)
	for i := 0; i < 500; i++ {
		f.desk.mu.Lock()
		done := f.desk.clipboard != "" && f.desk.opened != ""
		f.desk.mu.Unlock()
		if done {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.desk.mu.Lock()
	if f.desk.clipboard != "docker context use paddock" {
		t.Errorf("clipboard %q after Copy Docker Context", f.desk.clipboard)
	}
	if f.desk.opened != f.tray.opts.Paths.LogDir {
		t.Errorf("Show Logs opened %q, not the log directory", f.desk.opened)
	}
	f.desk.mu.Unlock()

	f.click(menu.LabelStop)
	f.await("Stopping…")
	f.d.SetAppConditions(paddocktest.Condition(resource.AppRunning, "False", resource.ReasonStartFailed, "qemu: cannot allocate memory"))
	f.await("Failed: qemu: cannot allocate memory")
	if n := f.awaitNote(); n.title != "Paddock failed" || n.body != "qemu: cannot allocate memory" {
		t.Errorf("notification %q: %q", n.title, n.body)
	}

	f.d.Stop()
	m = f.await(menu.StatusDaemonDown)
	if item(m, menu.LabelStartDaemon) == nil || item(m, menu.LabelStart) != nil {
		t.Errorf("daemon down: %v", m)
	}
	f.d.Start()
	f.await("Failed: qemu: cannot allocate memory")

	f.click(menu.LabelQuit)
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	if !f.host.quit {
		t.Error("Quit did not quit")
	}
}

func TestDisabledClickDoesNothing(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	f.click(menu.LabelStop)
	f.click(menu.LabelRestart)
	time.Sleep(100 * time.Millisecond)
	if _, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName); !resource.IsNotFound(err) {
		t.Fatalf("a disabled item's click reached the daemon: %v", err)
	}
}

// TestAppliedSettingsAreAnnounced: the settings window reports the
// generation its Apply made; the tray announces when the App settles at it.
func TestAppliedSettingsAreAnnounced(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	app, err := f.d.Client().PatchApp(context.Background(), []byte(`{"spec":{"memory":"2GiB"}}`))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := link.ParseApplied(link.Applied(app.Metadata.Generation))
	if !ok {
		t.Fatal("the window's report does not parse")
	}
	f.tray.expect(g)
	f.d.SetAppConditions(paddocktest.Condition(resource.AppCreated, "True", "Created", ""), paddocktest.Condition(resource.AppRunning, "False", resource.ReasonStopped, ""),
		paddocktest.Condition(resource.AppSettled, "True", "Stopped", "the VM is stopped"))
	if n := f.awaitNote(); n.title != "Paddock stopped" {
		t.Errorf("notification %q: %q", n.title, n.body)
	}
}

// While the App's VM boots, the status line says the boot's step, from the
// VM's host agent log; a start that fails reads Failed with its reason,
// not Starting, while the App is still wanted running, and Restart (not
// Start) tries again.
func TestStatusLineFollowsTheBoot(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	ctx := context.Background()
	cl := f.d.Client()
	if _, err := cl.PatchApp(ctx, []byte(`{"spec":{"running":true}}`)); err != nil {
		t.Fatal(err)
	}
	app := f.app()
	ns := app.Spec.Namespace
	owner := resource.OwnerReference{Kind: resource.KindApp.Name, Name: resource.AppName, UID: app.Metadata.UID, Controller: true}
	vm := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "app", Namespace: ns, OwnerReferences: []resource.OwnerReference{owner}}, Spec: resource.VMSpec{Running: true, TemplateRef: "app-template"}}
	if _, err := cl.Create(ctx, vm); err != nil {
		t.Fatal(err)
	}
	starting := paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStarting, "booting")
	created := paddocktest.Condition(resource.VMCreated, "True", resource.ReasonCreated, "")
	f.d.SetVMConditions(ns, "app", created, starting)
	f.d.SetAppConditions(created, starting)
	f.await("Starting… booting the VM")
	f.d.AppendHostAgentLog("app", `Starting QEMU (hint: to watch the boot progress, see the serial log)`)
	f.await("Starting… booting the kernel")
	f.d.AppendHostAgentLog("app", `Waiting for the essential requirement 1 of 2: "ssh"`)
	m := f.await("Starting… waiting for SSH")
	if it := item(m, "app — Starting: waiting for SSH"); it == nil {
		t.Errorf("the Machines submenu does not show the boot: %+v", item(m, menu.LabelMachines).Children)
	}

	failed := paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStartFailed, "SSH never came up")
	f.d.SetVMConditions(ns, "app", failed)
	f.d.SetAppConditions(failed, paddocktest.Condition(resource.AppSettled, "False", resource.ReasonStartFailed, "SSH never came up"))
	m = f.await("Failed: SSH never came up")
	if item(m, menu.LabelStart).Enabled || !item(m, menu.LabelStop).Enabled || !item(m, menu.LabelRestart).Enabled {
		t.Errorf("a failed start: Start %v Stop %v Restart %v; want Stop and Restart",
			item(m, menu.LabelStart).Enabled, item(m, menu.LabelStop).Enabled, item(m, menu.LabelRestart).Enabled)
	}
	if it := item(m, "app — Failed (StartFailed)"); it == nil {
		t.Errorf("Machines: %+v", item(m, menu.LabelMachines).Children)
	}
	f.click(menu.LabelRestart)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		obj, err := cl.Get(ctx, resource.KindVM, ns, "app")
		if err != nil {
			t.Fatal(err)
		}
		if _, asked := obj.GetMeta().Annotations[resource.AnnotationRestartRequested]; asked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Restart did not ask the VM to restart")
		}
	}
}

// awaitGeneration waits until the App's generation is above gen, and
// returns the App.
func (f *fixture) awaitGeneration(gen int64) *resource.App {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		obj, err := f.d.Client().Get(context.Background(), resource.KindApp, "", resource.AppName)
		if err == nil && obj.GetMeta().Generation > gen {
			return obj.(*resource.App)
		}
	}
	f.t.Fatalf("the App stayed at generation %d", gen)
	return nil
}

// Each Start of an App that cannot start is announced, also when it fails
// as the one before did: the same condition, whose transition time does
// not change, and a menu that says Failed throughout.
func TestEveryFailedStartIsAnnounced(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	noImage := []metav1.Condition{
		paddocktest.Condition(resource.AppCreated, "False", resource.ReasonCreateFailed, "no guest image"),
		paddocktest.Condition(resource.AppSettled, "False", resource.ReasonCreateFailed, "no guest image"),
	}
	var gen int64
	for i, click := range []string{menu.LabelStart, menu.LabelStop, menu.LabelStart, menu.LabelStop, menu.LabelStart} {
		f.click(click)
		// The App controller's answer to the change: the same failure.
		gen = f.awaitGeneration(gen).Metadata.Generation
		f.d.SetAppConditions(noImage...)
		if n := f.awaitNote(); n.title != "Paddock failed" || n.body != "no guest image" {
			t.Errorf("%s #%d: notification %q: %q", click, i+1, n.title, n.body)
		}
		m := f.await("Failed: no guest image")
		if running := click == menu.LabelStart; item(m, menu.LabelStart).Enabled == running {
			t.Fatalf("after %s #%d, Start enabled %v", click, i+1, item(m, menu.LabelStart).Enabled)
		}
	}
	select {
	case n := <-f.desk.notes:
		t.Errorf("a notification more: %q: %q", n.title, n.body)
	case <-time.After(200 * time.Millisecond):
	}
}

// A VM's Start, Stop or Restart under Machines is announced when it
// fails, each time.
func TestFailedVMActionIsAnnounced(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	ctx := context.Background()
	vm := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "dev", Namespace: "default"}, Spec: resource.VMSpec{TemplateRef: "dev-template"}}
	if _, err := f.d.Client().Create(ctx, vm); err != nil {
		t.Fatal(err)
	}
	created := paddocktest.Condition(resource.VMCreated, "True", resource.ReasonCreated, "")
	f.d.SetVMConditions("default", "dev", created, paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStopped, ""))
	for i := 1; i <= 2; i++ {
		f.awaitVM("dev — Stopped")
		f.clickVM("dev", menu.LabelStart)
		f.awaitVMGeneration("dev", int64(2*i))
		f.d.SetVMConditions("default", "dev", paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStartFailed, "kernel panic"))
		if n := f.awaitNote(); n.title != "VM dev did not start" || n.body != "kernel panic" {
			t.Errorf("start #%d: notification %q: %q", i, n.title, n.body)
		}
		f.awaitVM("dev — Failed (StartFailed)")
		f.clickVM("dev", menu.LabelStop)
		f.awaitVMGeneration("dev", int64(2*i+1))
		f.d.SetVMConditions("default", "dev", paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStopped, ""))
	}
	select {
	case n := <-f.desk.notes:
		t.Errorf("a notification more: %q: %q", n.title, n.body)
	case <-time.After(200 * time.Millisecond):
	}
}

// awaitVM waits until the Machines submenu shows an item labelled label.
func (f *fixture) awaitVM(label string) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		f.host.mu.Lock()
		it := item(f.host.menu, label)
		f.host.mu.Unlock()
		if it != nil {
			return
		}
	}
	f.t.Fatalf("the Machines submenu never showed %q", label)
}

// clickVM clicks the item labelled label in VM name's submenu.
func (f *fixture) clickVM(name, label string) {
	f.t.Helper()
	f.host.mu.Lock()
	var found *menu.Item
	for _, vm := range item(f.host.menu, menu.LabelMachines).Children {
		if strings.HasPrefix(vm.Label, name+" — ") {
			found = item(vm.Children, label)
		}
	}
	click := f.host.click
	f.host.mu.Unlock()
	if found == nil {
		f.t.Fatalf("no %q for VM %s", label, name)
	}
	click(found.Action)
}

// awaitVMGeneration waits until VM default/name is at generation gen.
func (f *fixture) awaitVMGeneration(name string, gen int64) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		obj, err := f.d.Client().Get(context.Background(), resource.KindVM, "default", name)
		if err == nil && obj.GetMeta().Generation == gen {
			return
		}
	}
	f.t.Fatalf("VM %s never reached generation %d", name, gen)
}
