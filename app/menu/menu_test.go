package menu

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

func cond(t, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
}

func app(running bool, conds ...metav1.Condition) *resource.App {
	a := &resource.App{Metadata: resource.ObjectMeta{Name: resource.AppName}}
	a.Spec.Running = running
	a.Spec.CPUs = 2
	a.Spec.Memory = "4GiB"
	a.Status.Conditions = conds
	return a
}

var (
	created    = cond(resource.AppCreated, "True", resource.ReasonCreated, "")
	vmStarting = cond(resource.AppRunning, "False", resource.ReasonStarting, "")
	vmStarted  = cond(resource.AppRunning, "True", resource.ReasonStarted, "")
	vmStopped  = cond(resource.AppRunning, "False", resource.ReasonStopped, "")
	engineUp   = cond(resource.AppContainerEngineReady, "True", "Connected", "")
	engineDown = cond(resource.AppContainerEngineReady, "False", "Stopped", "")
	settled    = cond(resource.AppSettled, "True", "Settled", "")
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
		{"stopped", app(false, created, vmStopped, engineDown, settled), "Stopped", IconStopped, enabled{start: true, settings: true}},
		{"asked to start, VM not created", app(true), "Starting… creating the VM", IconStarting, enabled{stop: true, settings: true}},
		{"booting", app(true, created, vmStarting), "Starting… booting the VM", IconStarting, enabled{stop: true, settings: true}},
		{"engine starting", app(true, created, vmStarted, engineDown), "Starting… starting moby", IconStarting, enabled{stop: true, settings: true}},
		{"not settled", app(true, created, vmStarted, engineUp, cond(resource.AppSettled, "False", "RestartPending", "restarting with 4 CPUs")),
			"Starting… restarting with 4 CPUs", IconStarting, enabled{stop: true, settings: true}},
		{"running", app(true, created, vmStarted, engineUp, settled), "Running — moby, 2 CPUs, 4 GiB", IconRunning,
			enabled{stop: true, restart: true, settings: true, shell: true, context: true}},
		{"stopping", app(false, created, vmStarted, engineUp), "Stopping…", IconStarting, enabled{start: true, settings: true}},
		{"start failed", app(true, created, cond(resource.AppRunning, "False", resource.ReasonStartFailed, "qemu: no such file\nmore")),
			"Failed: qemu: no such file", IconError, enabled{stop: true, restart: true, settings: true}},
		{"create failed", app(true, cond(resource.AppCreated, "False", resource.ReasonCreateFailed, "")),
			"Failed: CreateFailed", IconError, enabled{stop: true, restart: true, settings: true}},
		{"VM name taken", app(true, cond(resource.AppCreated, "False", "VMNameTaken", "VM paddock/app exists and is not the App's")),
			"Failed: VM paddock/app exists and is not the App's", IconError, enabled{stop: true, restart: true, settings: true}},
		{"stop failed", app(false, created, cond(resource.AppRunning, "False", resource.ReasonStopFailed, "stuck")),
			"Failed: stuck", IconError, enabled{start: true, settings: true}},
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

func TestContainerdHasNoDockerContext(t *testing.T) {
	a := app(true, created, vmStarted, engineUp, settled)
	a.Spec.ContainerEngine.Name = resource.EngineContainerd
	m := Build(State{DaemonUp: true, App: a})
	if m.Status != "Running — containerd, 2 CPUs, 4 GiB" || find(t, m.Items, LabelCopyContext).Enabled {
		t.Fatalf("status %q, Copy Docker Context enabled %v", m.Status, find(t, m.Items, LabelCopyContext).Enabled)
	}
}

func TestDaemonDown(t *testing.T) {
	for _, starting := range []bool{false, true} {
		// What the tray last saw of the App must not show once the daemon is gone.
		m := Build(State{StartingDaemon: starting, App: app(true, created, vmStarted, engineUp, settled)})
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
	vms := []resource.VM{
		vm("g-stopping", false, cond(resource.VMRunning, "True", resource.ReasonStarted, "")),
		vm("a-new", false),
		vm("b-pending", true, cond(resource.VMCreated, "False", resource.ReasonPending, "")),
		vm("c-starting", true, cond(resource.VMCreated, "True", resource.ReasonCreated, ""), cond(resource.VMRunning, "False", resource.ReasonStarting, "")),
		vm("d-running", true, cond(resource.VMCreated, "True", resource.ReasonCreated, ""), cond(resource.VMRunning, "True", resource.ReasonStarted, "")),
		vm("e-stopped", false, cond(resource.VMCreated, "True", resource.ReasonCreated, ""), cond(resource.VMRunning, "False", resource.ReasonStopped, "")),
		vm("f-failed", true, cond(resource.VMRunning, "False", resource.ReasonStartFailed, "kernel panic")),
		vm("f-createfailed", true, cond(resource.VMCreated, "False", resource.ReasonCreateFailed, "bad template")),
		vm("f-stopfailed", false, cond(resource.VMRunning, "False", resource.ReasonStopFailed, "")),
		deleting,
	}
	want := []struct {
		label       string
		start, stop bool
	}{
		{"a-new — Stopped", true, false},
		{"b-pending — Starting", false, true},
		{"c-starting — Starting", false, true},
		{"d-running — Running", false, true},
		{"e-stopped — Stopped", true, false},
		{"f-createfailed — Failed", false, true},
		{"f-failed — Failed", false, true},
		{"f-stopfailed — Failed", true, false},
		{"g-stopping — Stopping", true, false},
		{"h-deleting — Deleting", false, false},
	}
	m := Build(State{DaemonUp: true, VMs: vms})
	got := find(t, m.Items, LabelMachines).Children
	if len(got) != len(want) {
		t.Fatalf("%d machines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		it := got[i]
		if it.Label != w.label || len(it.Children) != 2 {
			t.Errorf("machine %d: %q with %d items, want %q with Start and Stop", i, it.Label, len(it.Children), w.label)
			continue
		}
		start, stop := it.Children[0], it.Children[1]
		if start.Label != LabelStart || start.Enabled != w.start || stop.Label != LabelStop || stop.Enabled != w.stop {
			t.Errorf("%s: Start %v Stop %v, want %v %v", w.label, start.Enabled, stop.Enabled, w.start, w.stop)
		}
		name := strings.SplitN(w.label, " ", 2)[0]
		if start.Action != (Action{DoStartVM, "default", name}) || stop.Action != (Action{DoStopVM, "default", name}) {
			t.Errorf("%s: actions %+v %+v", w.label, start.Action, stop.Action)
		}
	}
	if empty := find(t, Build(State{DaemonUp: true}).Items, LabelMachines).Children; len(empty) != 1 || empty[0].Label != LabelNoMachines || empty[0].Enabled {
		t.Errorf("no VMs: %+v", empty)
	}
}

func TestLongFailureIsCut(t *testing.T) {
	m := Build(State{DaemonUp: true, App: app(true, cond(resource.AppRunning, "False", resource.ReasonStartFailed, strings.Repeat("é", 200)))})
	if n := len([]rune(m.Status)); n != len("Failed: ")+maxStatus {
		t.Fatalf("status of %d characters: %q", n, m.Status)
	}
}
