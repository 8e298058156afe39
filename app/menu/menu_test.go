package menu

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

func cond(t, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
}

func newApp(running bool, conds ...metav1.Condition) *resource.App {
	app := &resource.App{Metadata: resource.ObjectMeta{Name: resource.AppName}}
	app.Spec.Running = running
	app.Spec.CPUs = 2
	app.Spec.Memory = "4GiB"
	app.Status.Conditions = conds
	return app
}

// withEngine sets app's container engine.
func withEngine(app *resource.App, engine string) *resource.App {
	app.Spec.ContainerEngine.Name = engine
	return app
}

var (
	created     = cond(resource.AppCreated, "True", resource.ReasonCreated, "")
	vmStarting  = cond(resource.AppRunning, "False", resource.ReasonStarting, "")
	vmStarted   = cond(resource.AppRunning, "True", resource.ReasonStarted, "")
	vmStopped   = cond(resource.AppRunning, "False", resource.ReasonStopped, "")
	vmSuspended = cond(resource.AppRunning, "False", resource.ReasonSuspended, "")
	engineUp    = cond(resource.AppContainerEngineReady, "True", "Connected", "")
	engineDown  = cond(resource.AppContainerEngineReady, "False", "Stopped", "")
	settled     = cond(resource.AppSettled, "True", "Settled", "")
)

// find returns the item labelled label, searching submenus too.
func find(t *testing.T, items []Item, label string) Item {
	t.Helper()
	for _, it := range items {
		if it.Label == label {
			return it
		}
		for _, c := range it.Children {
			if c.Label == label {
				return c
			}
		}
	}
	t.Fatalf("no item %q in %+v", label, items)
	return Item{}
}

func TestAppStates(t *testing.T) {
	type enabled struct{ start, stop, restart, settings, shell, context bool }
	cases := []struct {
		name   string
		app    *resource.App
		status string
		icon   Icon
		want   enabled
	}{
		{"no App yet", nil, "Stopped", IconStopped, enabled{start: true, settings: true}},
		{"stopped", newApp(false, created, vmStopped, engineDown, settled), "Stopped", IconStopped, enabled{start: true, settings: true}},
		{"asked to start, VM not created", newApp(true), "Starting… creating the VM", IconStarting, enabled{stop: true, settings: true}},
		{"booting", newApp(true, created, vmStarting), "Starting… booting the VM", IconStarting, enabled{stop: true, settings: true}},
		{"engine starting", newApp(true, created, vmStarted, engineDown), "Starting… starting moby", IconStarting, enabled{stop: true, settings: true}},
		{"not settled", newApp(true, created, vmStarted, engineUp, cond(resource.AppSettled, "False", "RestartPending", "restarting with 4 CPUs")),
			"Starting… restarting with 4 CPUs", IconStarting, enabled{stop: true, settings: true}},
		{"running", newApp(true, created, vmStarted, engineUp, settled), "Running — moby, 2 CPUs, 4 GiB", IconRunning,
			enabled{stop: true, restart: true, settings: true, shell: true, context: true}},
		{"stopping", newApp(false, created, vmStarted, engineUp), "Stopping…", IconStarting, enabled{start: true, settings: true}},
		{"start failed", newApp(true, created, cond(resource.AppRunning, "False", resource.ReasonStartFailed, "qemu: no such file\nmore")),
			"Failed: qemu: no such file", IconError, enabled{stop: true, restart: true, settings: true}},
		{"create failed", newApp(true, cond(resource.AppCreated, "False", resource.ReasonCreateFailed, "")),
			"Failed: CreateFailed", IconError, enabled{stop: true, restart: true, settings: true}},
		{"VM name taken", newApp(true, cond(resource.AppCreated, "False", "VMNameTaken", "VM paddock/app exists and is not the App's")),
			"Failed: VM paddock/app exists and is not the App's", IconError, enabled{stop: true, restart: true, settings: true}},
		{"stop failed", newApp(false, created, cond(resource.AppRunning, "False", resource.ReasonStopFailed, "stuck")),
			"Failed: stuck", IconError, enabled{start: true, settings: true}},
		// A terminal start failure stays while spec.running is true: not
		// "Starting"; Restart tries again (Start would change nothing).
		{"start failed, still wanted, settled forwards it", newApp(true, created, cond(resource.AppRunning, "False", resource.ReasonStartFailed, "no SSH"),
			engineDown, cond(resource.AppSettled, "False", resource.ReasonStartFailed, "no SSH")),
			"Failed: no SSH", IconError, enabled{stop: true, restart: true, settings: true}},
		{"stopped, still wanted", newApp(true, created, vmStopped, engineDown),
			"Stopped", IconStopped, enabled{stop: true, settings: true}},
		{"template failed", newApp(true, cond(resource.AppCreated, "False", resource.ReasonTemplateFailed, "bad template"),
			cond(resource.AppSettled, "False", resource.ReasonTemplateFailed, "bad template")),
			"Failed: bad template", IconError, enabled{stop: true, restart: true, settings: true}},
		{"invalid change, VM running", newApp(true, created, vmStarted, engineUp, cond(resource.AppSettled, "False", resource.ReasonInvalidSpec, "too many CPUs")),
			"Failed: too many CPUs", IconError, enabled{stop: true, restart: true, settings: true}},
		{"restarting", newApp(true, created, cond(resource.AppRunning, "False", resource.ReasonReconciling, "")),
			"Starting… restarting the VM", IconStarting, enabled{stop: true, settings: true}},
		{"created, not wanted", newApp(false, cond(resource.AppCreated, "False", "Creating", "")),
			"Stopped", IconStopped, enabled{start: true, settings: true}},
		{"deleting", deleting(newApp(true, created, vmStarted, engineUp, settled)),
			"Deleting…", IconStarting, enabled{}},
		// Suspended: Start wakes it, Stop stops it, Open Shell wakes it;
		// its context still reaches it (a Docker request wakes it).
		{"suspended", newApp(true, created, vmSuspended, cond(resource.AppContainerEngineReady, "False", resource.ReasonSuspended, ""), cond(resource.AppSettled, "True", resource.ReasonSuspended, "")),
			"Suspended — the next Docker request wakes it", IconStopped, enabled{start: true, stop: true, settings: true, shell: true, context: true}},
		{"suspended, running containerd", withEngine(newApp(true, created, vmSuspended, cond(resource.AppContainerEngineReady, "False", resource.ReasonSuspended, ""), cond(resource.AppSettled, "True", resource.ReasonSuspended, "")), resource.EngineContainerd),
			"Suspended — the next containerd request wakes it", IconStopped, enabled{start: true, stop: true, settings: true, shell: true}},
		{"suspending", newApp(true, created, vmStarted, engineUp, cond(resource.AppSettled, "False", resource.ReasonSuspending, "")),
			"Stopping…", IconStarting, enabled{stop: true, settings: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Build(State{DaemonUp: true, App: c.app})
			if m.Status != c.status || m.Items[0].Label != c.status || m.Items[0].Enabled {
				t.Errorf("status %q (item %+v), want %q as a disabled first item", m.Status, m.Items[0], c.status)
			}
			if m.Icon != c.icon {
				t.Errorf("icon %d, want %d", m.Icon, c.icon)
			}
			got := enabled{
				start:    find(t, m.Items, LabelStart).Enabled,
				stop:     find(t, m.Items, LabelStop).Enabled,
				restart:  find(t, m.Items, LabelRestart).Enabled,
				settings: find(t, m.Items, LabelSettings).Enabled,
				shell:    find(t, m.Items, LabelOpenShell).Enabled,
				context:  find(t, m.Items, LabelCopyContext).Enabled,
			}
			if got != c.want {
				t.Errorf("enabled %+v, want %+v", got, c.want)
			}
			for _, l := range []string{LabelShowLogs, LabelMachines, LabelQuit} {
				if !find(t, m.Items, l).Enabled {
					t.Errorf("%s disabled", l)
				}
			}
			for _, it := range m.Items {
				if it.Label == LabelStartDaemon {
					t.Error("Start Daemon offered while the daemon runs")
				}
			}
		})
	}
}

func deleting(app *resource.App) *resource.App {
	now := time.Now()
	app.Metadata.DeletionTimestamp = &now
	return app
}

// The status line says the App's phase as the CLI reads it
// (resource.App.PhaseAndReason): the words differ, the phase does not.
func TestAppPhaseIsTheCLIs(t *testing.T) {
	cases := []struct {
		app  *resource.App
		cli  string
		tray Phase
	}{
		{newApp(true), resource.PhasePending, Starting},
		{newApp(false), resource.PhasePending, Stopped},
		{newApp(true, created, vmStarting), resource.PhaseStarting, Starting},
		{newApp(true, created, vmStarted, engineDown), resource.PhaseStarting, Starting},
		{newApp(true, created, vmStarted, engineUp, settled), resource.PhaseRunning, Running},
		{newApp(false, created, vmStarted, engineUp), resource.PhaseStopping, Stopping},
		{newApp(true, created, vmStopped), resource.PhaseStopped, Stopped},
		{newApp(true, created, cond(resource.AppRunning, "False", resource.ReasonStartFailed, "x")), resource.PhaseFailed, Failed},
		{deleting(newApp(true, created, vmStarted)), resource.PhaseTerminating, Deleting},
		{newApp(true, created, vmSuspended), resource.PhaseSuspended, Suspended},
	}
	for _, c := range cases {
		cli, _ := c.app.PhaseAndReason()
		tray, _ := AppPhase(c.app, "")
		if cli != c.cli || tray != c.tray {
			t.Errorf("%+v: CLI %s, tray %s; want %s, %s", c.app.Status.Conditions, cli, tray, c.cli, c.tray)
		}
	}
}

// While the App's VM boots, the status line shows the boot's step; once
// the VM runs, the step no longer shows.
func TestBootStepShows(t *testing.T) {
	boots := map[string]string{VMKey(resource.DefaultAppNamespace, "app"): "waiting for SSH"}
	app := newApp(true, created, vmStarting)
	app.Spec.Namespace = resource.DefaultAppNamespace
	if m := Build(State{DaemonUp: true, App: app, Boots: boots}); m.Status != "Starting… waiting for SSH" {
		t.Errorf("booting: %q", m.Status)
	}
	app.Status.Conditions = []metav1.Condition{created, vmStarted, engineDown}
	if m := Build(State{DaemonUp: true, App: app, Boots: boots}); m.Status != "Starting… starting moby" {
		t.Errorf("booted: %q", m.Status)
	}
	app.Spec.Namespace = "elsewhere" // another VM's boot is not the App's
	app.Status.Conditions = []metav1.Condition{created, vmStarting}
	if m := Build(State{DaemonUp: true, App: app, Boots: boots}); m.Status != "Starting… booting the VM" {
		t.Errorf("another VM's boot: %q", m.Status)
	}
}

func TestContainerdHasNoDockerContext(t *testing.T) {
	app := newApp(true, created, vmStarted, engineUp, settled)
	app.Spec.ContainerEngine.Name = resource.EngineContainerd
	m := Build(State{DaemonUp: true, App: app})
	if m.Status != "Running — containerd, 2 CPUs, 4 GiB" || find(t, m.Items, LabelCopyContext).Enabled {
		t.Fatalf("status %q, Copy Docker Context enabled %v", m.Status, find(t, m.Items, LabelCopyContext).Enabled)
	}
}

func TestDaemonDown(t *testing.T) {
	for _, starting := range []bool{false, true} {
		// What the tray last saw of the App must not show once the daemon is gone.
		m := Build(State{StartingDaemon: starting, App: newApp(true, created, vmStarted, engineUp, settled)})
		want := StatusDaemonDown
		if starting {
			want = StatusDaemonStarts
		}
		if m.Status != want || m.Icon != IconStopped {
			t.Errorf("status %q icon %d, want %q", m.Status, m.Icon, want)
		}
		if got := find(t, m.Items, LabelStartDaemon).Enabled; got == starting {
			t.Errorf("starting=%v: Start Daemon enabled %v", starting, got)
		}
		var labels []string
		for _, it := range m.Items {
			labels = append(labels, it.Label)
		}
		for _, l := range []string{LabelStart, LabelStop, LabelRestart, LabelSettings, LabelMachines} {
			if strings.Contains(strings.Join(labels, "|"), l+"|") {
				t.Errorf("%q offered while the daemon is down: %q", l, labels)
			}
		}
		if !find(t, m.Items, LabelQuit).Enabled {
			t.Error("Quit disabled")
		}
	}
}

func vm(name string, running bool, conds ...metav1.Condition) resource.VM {
	v := resource.VM{Metadata: resource.ObjectMeta{Name: name, Namespace: "default"}}
	v.Spec.Running = running
	v.Status.Conditions = conds
	return v
}

func TestMachines(t *testing.T) {
	now := time.Now()
	deleting := vm("h-deleting", false)
	deleting.Metadata.DeletionTimestamp = &now
	createdVM := cond(resource.VMCreated, "True", resource.ReasonCreated, "")
	vms := []resource.VM{
		vm("g-stopping", false, cond(resource.VMRunning, "True", resource.ReasonStarted, "")),
		vm("a-new", false),
		vm("b-pending", true, cond(resource.VMCreated, "False", resource.ReasonPending, "")),
		vm("c-starting", true, createdVM, cond(resource.VMRunning, "False", resource.ReasonStarting, "")),
		vm("c-booting", true, createdVM, cond(resource.VMRunning, "False", resource.ReasonStarting, "")),
		vm("d-running", true, createdVM, cond(resource.VMRunning, "True", resource.ReasonStarted, "")),
		vm("e-stopped", false, createdVM, cond(resource.VMRunning, "False", resource.ReasonStopped, "")),
		vm("e-stopped-wanted", true, createdVM, cond(resource.VMRunning, "False", resource.ReasonStopped, "")),
		vm("f-failed", true, createdVM, cond(resource.VMRunning, "False", resource.ReasonStartFailed, "kernel panic")),
		vm("f-createfailed", true, cond(resource.VMCreated, "False", resource.ReasonCreateFailed, "bad template")),
		vm("f-stopfailed", false, cond(resource.VMRunning, "False", resource.ReasonStopFailed, "")),
		deleting,
	}
	boots := map[string]string{VMKey("default", "c-booting"): "booting the kernel", VMKey("default", "d-running"): "stale"}
	want := []struct {
		label                string
		start, stop, restart bool
	}{
		{"a-new — Pending", true, false, false},
		{"b-pending — Pending", false, true, false},
		{"c-booting — Starting: booting the kernel", false, true, false},
		{"c-starting — Starting", false, true, false},
		{"d-running — Running", false, true, true},
		{"e-stopped — Stopped", true, false, false},
		{"e-stopped-wanted — Stopped", false, true, false},
		{"f-createfailed — Failed (CreateFailed)", false, true, true},
		{"f-failed — Failed (StartFailed)", false, true, true},
		{"f-stopfailed — Failed (StopFailed)", true, false, false},
		{"g-stopping — Stopping", true, false, false},
		{"h-deleting — Terminating", false, false, false},
	}
	m := Build(State{DaemonUp: true, VMs: vms, Boots: boots})
	got := find(t, m.Items, LabelMachines).Children
	if len(got) != len(want) {
		t.Fatalf("%d machines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		it := got[i]
		// The label says the phase as 'paddock vm list' does.
		v := vms[slices.IndexFunc(vms, func(v resource.VM) bool { return strings.HasPrefix(w.label, v.Metadata.Name+" ") })]
		if phase, _ := v.PhaseAndReason(); !strings.HasPrefix(it.Label, v.Metadata.Name+" — "+phase) {
			t.Errorf("machine %d: %q does not say the CLI's phase %s", i, it.Label, phase)
		}
		if it.Label != w.label || len(it.Children) != 3 {
			t.Errorf("machine %d: %q with %d items, want %q with Start, Stop and Restart", i, it.Label, len(it.Children), w.label)
			continue
		}
		start, stop, restart := it.Children[0], it.Children[1], it.Children[2]
		if start.Label != LabelStart || start.Enabled != w.start || stop.Label != LabelStop || stop.Enabled != w.stop ||
			restart.Label != LabelRestart || restart.Enabled != w.restart {
			t.Errorf("%s: Start %v Stop %v Restart %v, want %v %v %v", w.label, start.Enabled, stop.Enabled, restart.Enabled, w.start, w.stop, w.restart)
		}
		name := v.Metadata.Name
		if start.Action != (Action{DoStartVM, "default", name}) || stop.Action != (Action{DoStopVM, "default", name}) ||
			restart.Action != (Action{DoRestartVM, "default", name}) {
			t.Errorf("%s: actions %+v %+v %+v", w.label, start.Action, stop.Action, restart.Action)
		}
	}
	if empty := find(t, Build(State{DaemonUp: true}).Items, LabelMachines).Children; len(empty) != 1 || empty[0].Label != LabelNoMachines || empty[0].Enabled {
		t.Errorf("no VMs: %+v", empty)
	}
}

func TestLongFailureIsCut(t *testing.T) {
	m := Build(State{DaemonUp: true, App: newApp(true, cond(resource.AppRunning, "False", resource.ReasonStartFailed, strings.Repeat("é", 200)))})
	if n := len([]rune(m.Status)); n != len("Failed: ")+maxStatus {
		t.Fatalf("status of %d characters: %q", n, m.Status)
	}
}

// Every item but a separator has a key, unique in its menu, and a key
// means one action in every menu: so a tray host that keeps ids by key
// never turns a click on an id of an earlier menu into another item's
// action.
func TestKeysNameOneThing(t *testing.T) {
	running := newApp(true, created, vmStarted, engineUp, settled)
	createdVM := cond(resource.VMCreated, "True", resource.ReasonCreated, "")
	states := []State{
		{},
		{StartingDaemon: true},
		{DaemonUp: true},
		{DaemonUp: true, App: newApp(false, created, vmStopped, engineDown, settled)},
		{DaemonUp: true, App: running, VMs: []resource.VM{vm("app", true, createdVM), vm("b", false, createdVM)}},
		{DaemonUp: true, App: deleting(running), VMs: []resource.VM{vm("b", true, createdVM), vm("c", false)}},
	}
	actions := map[string]Action{}
	for _, s := range states {
		seen := map[string]bool{}
		var visit func([]Item)
		visit = func(items []Item) {
			for _, it := range items {
				if it.Separator {
					continue
				}
				switch before, ok := actions[it.Key]; {
				case it.Key == "":
					t.Errorf("%q has no key", it.Label)
				case seen[it.Key]:
					t.Errorf("two items keyed %q in one menu", it.Key)
				case ok && before != it.Action:
					t.Errorf("key %q means %+v in one menu and %+v in another", it.Key, before, it.Action)
				}
				seen[it.Key], actions[it.Key] = true, it.Action
				visit(it.Children)
			}
		}
		visit(Build(s).Items)
	}
}
