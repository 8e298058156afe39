package tray

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// openSettings clicks Settings… and returns the window it opened.
func (f *fixture) openSettings() *settingsWindow {
	f.t.Helper()
	m := f.await("Stopped")
	item(m, menu.LabelSettings).Action()
	f.tray.mu.Lock()
	w := f.tray.settings
	f.tray.mu.Unlock()
	if w == nil || w.win == nil || w.win.Title() != SettingsTitle {
		f.t.Fatal("Settings… opened no settings window")
	}
	return w
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

func TestSettingsShowTheAPIsRejectionBesideTheField(t *testing.T) {
	f := newFixture(t)
	w := f.openSettings()
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
	awaitText(t, w.status, "Not applied: correct the fields marked.")
	if got := w.shownError("memory"); !strings.Contains(got, `"lots" is not a size`) {
		t.Errorf("memory error %q, want the API's message", got)
	}
	if w.shownError("cpus") != "" || w.shownError("disk") != "" {
		t.Error("errors shown beside fields that were right")
	}
	if !w.applyButton.Disabled() && w.progress.Visible() {
		t.Error("progress still shown after the rejection")
	}
}

func TestSettingsApplyPatchesAndWaitsForSettled(t *testing.T) {
	f := newFixture(t)
	w := f.openSettings()
	retype(w.memory, "2GiB")
	w.engine.SetSelected(resource.EngineContainerd)
	test.Tap(w.applyButton)
	awaitText(t, w.status, "Applying…")
	app := f.awaitApp(func(a *resource.App) bool { return a.Spec.Memory == "2GiB" })
	if app.Spec.Memory != "2GiB" || app.Spec.ContainerEngine.Name != resource.EngineContainerd || app.Spec.Disk != "64GiB" {
		t.Fatalf("patch not applied as sent: %+v", app.Spec)
	}
	if !w.progress.Visible() || !w.applyButton.Disabled() {
		t.Fatal("no progress shown while the change takes effect")
	}
	f.setStatus(cond(resource.AppSettled, "False", "Restarting", "the VM restarts into its new template"))
	awaitText(t, w.status, "Applying… the VM restarts into its new template")
	f.setStatus(cond(resource.AppCreated, "True", "Created", ""), cond(resource.AppRunning, "False", resource.ReasonStopped, ""),
		cond(resource.AppSettled, "True", "Stopped", "the VM is stopped"))
	awaitText(t, w.status, "Applied.")
	if w.progress.Visible() || w.applyButton.Disabled() {
		t.Error("progress still shown once Settled")
	}
	if n := <-f.app.notes; n.Title != "Paddock stopped" {
		t.Errorf("notification %q: %q", n.Title, n.Content)
	}
}
