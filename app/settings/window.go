package settings

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// Title is the settings window's title.
const Title = "Paddock Settings"

// settingsWindow edits the App's size, engine and idle time (after which
// the App is suspended: spec.suspendWhenIdle, a choice of Off and a few
// durations). Apply sends a merge patch
// of the fields that changed, shows each field's rejection beside it, and
// shows progress until the App is Settled at the new generation. Its
// methods run on Fyne's thread.
type settingsWindow struct {
	win   fyne.Window
	apply func(patch []byte) (*resource.App, error) // runs off Fyne's thread
	// do runs a function on Fyne's thread: fyne.Do, but in tests one that
	// also serialises calls, which the test driver's fyne.Do does not.
	do     func(func())
	spec   resource.AppSpec  // as last filled in
	fields map[string]*field // by spec field: cpus, memory, disk, containerEngine, suspendWhenIdle

	cpus, memory, disk *widget.Entry
	engine             *widget.RadioGroup
	idle               *widget.Select
	applyButton        *widget.Button
	progress           *widget.ProgressBarInfinite
	status             *widget.Label
	// waitFor is the App generation Apply made, until it settles.
	waitFor int64
	// last is the newest state the tray passed on. The daemon's answer to
	// Apply can come after the App's next change (its status, say), and
	// must not hide it.
	last menu.State
}

// field is one setting's row: its input and the error shown beside it.
type field struct {
	input fyne.CanvasObject
	err   *widget.Label
}

func newWindow(gui fyne.App, apply func([]byte) (*resource.App, error)) *settingsWindow {
	w := &settingsWindow{win: gui.NewWindow(Title), apply: apply, do: fyne.Do, fields: map[string]*field{}}
	w.cpus = widget.NewEntry()
	w.memory = widget.NewEntry()
	w.disk = widget.NewEntry()
	w.engine = widget.NewRadioGroup(resourceEngines(), nil)
	w.engine.Horizontal = true
	w.idle = widget.NewSelect(idleChoices, nil)
	w.applyButton = widget.NewButton("Apply", w.onApply)
	w.applyButton.Importance = widget.HighImportance
	w.progress = widget.NewProgressBarInfinite()
	w.progress.Hide()
	w.status = widget.NewLabel("")
	w.status.Wrapping = fyne.TextWrapWord

	form := widget.NewForm()
	for _, f := range []struct {
		key, label string
		input      fyne.CanvasObject
	}{
		{"cpus", "CPUs", w.cpus},
		{"memory", "Memory", w.memory},
		{"disk", "Disk", w.disk},
		{"containerEngine", "Container engine", w.engine},
		{"suspendWhenIdle", "Suspend when idle", w.idle},
	} {
		errLabel := widget.NewLabel("")
		errLabel.Importance = widget.DangerImportance
		errLabel.Wrapping = fyne.TextWrapWord
		errLabel.Hide()
		w.fields[f.key] = &field{input: f.input, err: errLabel}
		form.Append(f.label, container.NewVBox(f.input, errLabel))
	}
	w.win.SetContent(container.NewVBox(form, w.progress, w.status, container.NewHBox(w.applyButton)))
	w.win.Resize(fyne.NewSize(460, 0))
	return w
}

func resourceEngines() []string { return []string{resource.EngineMoby, resource.EngineContainerd} }

// fill shows the App's spec in the inputs; with no App, the defaults.
func (w *settingsWindow) fill(app *resource.App) {
	spec := resource.AppSpec{CPUs: 2, Memory: "4GiB", Disk: "64GiB"}
	setEngine(&spec, resource.EngineMoby)
	if app != nil {
		spec = app.Spec
	}
	w.spec = spec
	w.cpus.SetText(strconv.Itoa(spec.CPUs))
	w.memory.SetText(spec.Memory)
	w.disk.SetText(spec.Disk)
	w.engine.SetSelected(engineName(spec))
	w.idle.SetOptions(idleOptions(spec))
	w.idle.SetSelected(idleChoice(spec))
}

// patch is the merge patch of the fields the user changed, or the field
// errors found before anything is sent.
func (w *settingsWindow) patch() ([]byte, map[string]string) {
	spec := map[string]any{}
	errs := map[string]string{}
	if text := strings.TrimSpace(w.cpus.Text); text != strconv.Itoa(w.spec.CPUs) {
		n, err := strconv.Atoi(text)
		if err != nil {
			errs["cpus"] = "must be a whole number"
		} else {
			spec["cpus"] = n
		}
	}
	if text := strings.TrimSpace(w.memory.Text); text != w.spec.Memory {
		spec["memory"] = text
	}
	if text := strings.TrimSpace(w.disk.Text); text != w.spec.Disk {
		spec["disk"] = text
	}
	if e := w.engine.Selected; e != engineName(w.spec) {
		spec["containerEngine"] = engineValue(e)
	}
	if c := w.idle.Selected; c != "" && c != idleChoice(w.spec) {
		spec["suspendWhenIdle"] = idleValue(c)
	}
	if len(errs) > 0 || len(spec) == 0 {
		return nil, errs
	}
	data, _ := json.Marshal(map[string]any{"spec": spec})
	return data, nil
}

func (w *settingsWindow) onApply() {
	w.showErrors(nil)
	patch, errs := w.patch()
	if len(errs) > 0 {
		w.showErrors(errs)
		return
	}
	if patch == nil {
		w.status.SetText("Nothing changed.")
		return
	}
	w.applyButton.Disable()
	w.progress.Show()
	w.progress.Start()
	w.status.SetText("Applying…")
	go func() {
		app, err := w.apply(patch)
		w.do(func() { w.applied(app, err) })
	}()
}

// applied shows the daemon's answer to Apply.
func (w *settingsWindow) applied(app *resource.App, err error) {
	if err != nil {
		w.stopProgress()
		var re *resource.Error
		if errors.As(err, &re) && len(re.Fields) > 0 {
			errs := map[string]string{}
			for _, f := range re.Fields {
				errs[fieldKey(f.Field)] = f.Message
			}
			w.showErrors(errs)
			w.status.SetText("Not applied: correct the fields marked.")
			return
		}
		w.status.SetText("Not applied: " + err.Error())
		return
	}
	w.spec = app.Spec
	w.waitFor = app.Metadata.Generation
	s := menu.State{DaemonUp: true, App: app}
	if w.last.DaemonUp && w.last.App != nil && revision(w.last.App) >= revision(app) {
		s = w.last
	}
	w.update(s)
}

// revision is the store revision an App was read at.
func revision(app *resource.App) int64 {
	rv, _ := strconv.ParseInt(app.Metadata.ResourceVersion, 10, 64)
	return rv
}

// update follows the App while Apply's change takes effect.
func (w *settingsWindow) update(s menu.State) {
	w.last = s
	if w.waitFor == 0 {
		return
	}
	if !s.DaemonUp {
		w.status.SetText("Applying… (the daemon is not running)")
		return
	}
	if s.App == nil {
		return
	}
	settled := meta.FindStatusCondition(s.App.Status.Conditions, resource.AppSettled)
	phase, detail := menu.AppPhase(s.App, "")
	switch {
	case phase == menu.Failed:
		w.stopProgress()
		w.status.SetText("Failed: " + detail)
	case applied(s.App, w.waitFor):
		w.stopProgress()
		w.status.SetText("Applied.")
	case settled != nil && settled.Message != "":
		w.status.SetText("Applying… " + settled.Message)
	case detail != "":
		w.status.SetText("Applying… " + detail)
	}
}

func (w *settingsWindow) stopProgress() {
	w.waitFor = 0
	w.progress.Stop()
	w.progress.Hide()
	w.applyButton.Enable()
}

// showErrors puts each message beside its field and clears the others.
func (w *settingsWindow) showErrors(errs map[string]string) {
	for key, f := range w.fields {
		if msg, ok := errs[key]; ok {
			f.err.SetText(msg)
			f.err.Show()
		} else {
			f.err.SetText("")
			f.err.Hide()
		}
	}
}

// fieldKey maps an API field path (spec.containerEngine.name) to its row.
func fieldKey(path string) string {
	path = strings.TrimPrefix(path, "spec.")
	if i := strings.IndexByte(path, '.'); i >= 0 {
		path = path[:i]
	}
	return path
}

// currentApp is the App to fill the window with; nil when there is none.
func currentApp(ctx context.Context, cl *client.Client) (*resource.App, error) {
	obj, err := cl.Get(ctx, resource.KindApp, "", resource.AppName)
	if resource.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}

// applied reports whether the App settled for the change that gave it
// generation gen.
func applied(app *resource.App, gen int64) bool {
	met, _ := wire.AppSettledTrue.Met(app.Status.Conditions, gen)
	return met
}
