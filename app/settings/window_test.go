package settings

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"paddock.dev/paddock/app/live"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
)

type fixture struct {
	t  *testing.T
	d  *paddocktest.Daemon
	w  *settingsWindow
	mu sync.Mutex // held by whoever uses the window
}

// ui runs fn with the window to itself, as Fyne's own thread would.
func (f *fixture) ui(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// open shows the window as `paddock tray --settings` does, on Fyne's test
// driver, against a real API: it fills the window with the App and
// follows the App while Apply's change takes effect.
func open(t *testing.T) *fixture {
	d := paddocktest.NewDaemon(t)
	d.Start()
	cl := d.Client()
	ctx, cancel := context.WithCancel(context.Background())
	app, err := currentApp(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	w := newWindow(test.NewTempApp(t), func(patch []byte) (*resource.App, error) { return cl.PatchApp(ctx, patch) })
	fx := &fixture{t: t, d: d, w: w}
	w.do = fx.ui
	w.fill(app)
	w.win.Show()
	f := &live.Follower{Client: cl, Socket: d.Socket, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Changed: func(s menu.State) { w.do(func() { w.update(s) }) }}
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return fx
}

func retype(e fyne.Focusable, text string) {
	e.(interface{ SetText(string) }).SetText("")
	test.Type(e, text)
}

// shownError is the error beside a field, "" when none is shown.
func (w *settingsWindow) shownError(key string) string {
	if l := w.fields[key].err; l.Visible() {
		return l.Text
	}
	return ""
}

// awaitText waits until a label, updated from the follower, shows text.
func (f *fixture) awaitText(label *widget.Label, text string) {
	f.t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		f.ui(func() { got = label.Text })
		if got == text {
			return
		}
	}
	f.t.Fatalf("label shows %q, want %q", got, text)
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

func TestSettingsShowTheAPIsRejectionBesideTheField(t *testing.T) {
	f := open(t)
	w := f.w
	f.ui(func() {
		if w.cpus.Text != "2" || w.memory.Text != "4GiB" || w.engine.Selected != resource.EngineMoby {
			t.Fatalf("a new App's defaults not shown: %q %q %q", w.cpus.Text, w.memory.Text, w.engine.Selected)
		}
		retype(w.cpus, "two")
		test.Tap(w.applyButton)
		if got := w.shownError("cpus"); got != "must be a whole number" {
			t.Errorf("cpus error %q", got)
		}
		retype(w.cpus, "2")
		retype(w.memory, "lots")
		test.Tap(w.applyButton)
	})
	f.awaitText(w.status, "Not applied: correct the fields marked.")
	f.ui(func() {
		if got := w.shownError("memory"); !strings.Contains(got, `"lots" is not a size`) {
			t.Errorf("memory error %q, want the API's message", got)
		}
		if w.shownError("cpus") != "" || w.shownError("disk") != "" {
			t.Error("errors shown beside fields that were right")
		}
		if w.applyButton.Disabled() || w.progress.Visible() {
			t.Error("progress still shown after the rejection")
		}
	})
}

func TestSettingsApplyPatchesAndWaitsForSettled(t *testing.T) {
	f := open(t)
	w := f.w
	f.ui(func() {
		retype(w.memory, "2GiB")
		w.engine.SetSelected(resource.EngineContainerd)
		test.Tap(w.applyButton)
	})
	f.awaitText(w.status, "Applying…")
	app := f.awaitApp(func(app *resource.App) bool { return app.Spec.Memory == "2GiB" })
	if app.Spec.Memory != "2GiB" || app.Spec.ContainerEngine.Name != resource.EngineContainerd || app.Spec.Disk != "64GiB" {
		t.Fatalf("patch not applied as sent: %+v", app.Spec)
	}
	f.ui(func() {
		if !w.progress.Visible() || !w.applyButton.Disabled() {
			t.Error("no progress shown while the change takes effect")
		}
	})
	f.d.SetAppConditions(paddocktest.Condition(resource.AppSettled, "False", "Restarting", "the VM restarts into its new template"))
	f.awaitText(w.status, "Applying… the VM restarts into its new template")
	f.d.SetAppConditions(paddocktest.Condition(resource.AppCreated, "True", "Created", ""), paddocktest.Condition(resource.AppRunning, "False", resource.ReasonStopped, ""),
		paddocktest.Condition(resource.AppSettled, "True", "Stopped", "the VM is stopped"))
	f.awaitText(w.status, "Applied.")
	f.ui(func() {
		if w.progress.Visible() || w.applyButton.Disabled() {
			t.Error("progress still shown once Settled")
		}
	})
}

// The idle time is a choice: Off (the default) and a few durations; a
// value set elsewhere is shown as it is; a choice is applied as
// spec.suspendWhenIdle, Off as 0.
func TestSettingsSuspendWhenIdleIsAChoice(t *testing.T) {
	f := open(t)
	w := f.w
	f.ui(func() {
		if w.idle.Selected != "Off" || strings.Join(w.idle.Options, " ") != "Off 5m 15m 30m 1h" {
			t.Fatalf("a new App's idle choice: %q of %v", w.idle.Selected, w.idle.Options)
		}
		w.idle.SetSelected("15m")
		test.Tap(w.applyButton)
	})
	app := f.awaitApp(func(app *resource.App) bool { return app.Spec.SuspendWhenIdle == "15m" })
	f.d.SetAppConditions(paddocktest.Condition(resource.AppCreated, "True", "Created", ""), paddocktest.Condition(resource.AppRunning, "False", resource.ReasonStopped, ""),
		paddocktest.Condition(resource.AppSettled, "True", "Stopped", "the VM is stopped"))
	f.awaitText(w.status, "Applied.")

	// Set elsewhere to a time the window does not offer.
	if _, err := f.d.Client().PatchApp(context.Background(), []byte(`{"spec":{"suspendWhenIdle":"10s"}}`)); err != nil {
		t.Fatal(err)
	}
	app = f.awaitApp(func(app *resource.App) bool { return app.Spec.SuspendWhenIdle == "10s" })
	f.ui(func() {
		w.fill(app)
		if w.idle.Selected != "10s" || !slices.Contains(w.idle.Options, "10s") {
			t.Fatalf("10s shows as %q of %v", w.idle.Selected, w.idle.Options)
		}
		if patch, _ := w.patch(); patch != nil {
			t.Fatalf("nothing changed, yet the patch is %s", patch)
		}
		w.idle.SetSelected("Off")
		test.Tap(w.applyButton)
	})
	f.awaitApp(func(app *resource.App) bool { return app.Spec.SuspendWhenIdle == "0" && app.Spec.IdleTimeout() == 0 })
}
