package menu

import (
	"slices"
	"strings"

	"paddock.dev/paddock/core/resource"
)

// State is what the tray knows: whether the daemon answers, the App (nil
// when there is none) and every VM.
type State struct {
	// DaemonUp is true while the tray follows the daemon's watch streams.
	DaemonUp bool
	// StartingDaemon is true while the tray starts the daemon.
	StartingDaemon bool
	App            *resource.App
	VMs            []resource.VM
	// Boots holds the step each starting VM's boot is at, by VMKey, for
	// the VMs whose boot the tray follows.
	Boots map[string]string
}

// VMKey is a VM's key in State.Boots.
func VMKey(namespace, name string) string { return namespace + "/" + name }

// Icon is the picture the tray shows for the state.
type Icon int

const (
	IconStopped Icon = iota
	IconStarting
	IconRunning
	IconError
)

// Do names what an item does when clicked.
type Do int

const (
	DoNothing Do = iota
	DoStart
	DoStop
	DoRestart
	DoSettings
	DoOpenShell
	DoCopyDockerContext
	DoShowLogs
	DoStartDaemon
	DoStartVM
	DoStopVM
	DoRestartVM
	DoQuit
)

// Action is a click's meaning: what to do and, for a VM's items, to which.
type Action struct {
	Do        Do
	Namespace string
	Name      string
}

// Item is one menu entry. A separator has only Separator set; an item with
// Children opens a submenu.
type Item struct {
	// Key names the item for as long as it means the same thing: every
	// menu Build makes gives it the same key, whatever its label or state,
	// and no other item of a menu has it. A tray host keeps an item's id
	// by its key, so that a click on the id of an earlier menu means what
	// it meant there.
	Key       string
	Label     string
	Enabled   bool
	Action    Action
	Children  []Item
	Separator bool
}

// Menu is the whole tray menu and its icon.
type Menu struct {
	Status string
	Icon   Icon
	Items  []Item
}

// Labels of the items, for the tray and its tests.
const (
	LabelStart         = "Start"
	LabelStop          = "Stop"
	LabelRestart       = "Restart"
	LabelSettings      = "Settings…"
	LabelOpenShell     = "Open Shell"
	LabelCopyContext   = "Copy Docker Context"
	LabelShowLogs      = "Show Logs"
	LabelMachines      = "Machines"
	LabelNoMachines    = "No machines"
	LabelStartDaemon   = "Start Daemon"
	LabelQuit          = "Quit"
	StatusDaemonDown   = "Daemon not running"
	StatusDaemonStarts = "Starting the daemon…"
)

var separator = Item{Separator: true}

// Build computes the menu for s.
func Build(s State) Menu {
	if !s.DaemonUp {
		status := StatusDaemonDown
		if s.StartingDaemon {
			status = StatusDaemonStarts
		}
		return Menu{Status: status, Icon: IconStopped, Items: []Item{
			{Key: "status", Label: status},
			separator,
			{Key: "start-daemon", Label: LabelStartDaemon, Enabled: !s.StartingDaemon, Action: Action{Do: DoStartDaemon}},
			{Key: "show-logs", Label: LabelShowLogs, Enabled: true, Action: Action{Do: DoShowLogs}},
			separator,
			{Key: "quit", Label: LabelQuit, Enabled: true, Action: Action{Do: DoQuit}},
		}}
	}
	boot := ""
	if s.App != nil {
		boot = s.Boots[VMKey(s.App.Spec.Namespace, resource.AppVMName)]
	}
	phase, detail := AppPhase(s.App, boot)
	status, icon := appStatus(s.App, phase, detail)
	wanted := s.App != nil && s.App.Spec.Running
	moby := s.App != nil && engineOf(s.App) == resource.EngineMoby
	items := []Item{{Key: "status", Label: status}, separator}
	ctl := controls("", wanted, phase, Action{Do: DoStart}, Action{Do: DoStop}, Action{Do: DoRestart})
	if phase == Suspended {
		ctl[0].Enabled = true // Start wakes a suspended App
	}
	items = append(items, ctl...)
	return Menu{Status: status, Icon: icon, Items: append(items,
		separator,
		Item{Key: "settings", Label: LabelSettings, Enabled: phase != Deleting, Action: Action{Do: DoSettings}},
		Item{Key: "open-shell", Label: LabelOpenShell, Enabled: phase == Running || phase == Suspended, Action: Action{Do: DoOpenShell}},
		Item{Key: "copy-docker-context", Label: LabelCopyContext, Enabled: (phase == Running || phase == Suspended) && moby, Action: Action{Do: DoCopyDockerContext}},
		Item{Key: "show-logs", Label: LabelShowLogs, Enabled: true, Action: Action{Do: DoShowLogs}},
		Item{Key: "machines", Label: LabelMachines, Enabled: true, Children: machines(s.VMs, s.Boots)},
		separator,
		Item{Key: "quit", Label: LabelQuit, Enabled: true, Action: Action{Do: DoQuit}},
	)}
}

// controls are the Start, Stop and Restart items of an App or a VM that is
// wanted running or not and is in phase p, one rule for both: Start when
// it is not wanted running, Stop when it is, Restart when it runs or
// failed (a restart tries a failed start again; Start would change
// nothing), none while it is being deleted. Their keys begin with prefix.
func controls(prefix string, wanted bool, p Phase, start, stop, restart Action) []Item {
	return []Item{
		{Key: prefix + "start", Label: LabelStart, Enabled: !wanted && p != Deleting, Action: start},
		{Key: prefix + "stop", Label: LabelStop, Enabled: wanted && p != Deleting, Action: stop},
		{Key: prefix + "restart", Label: LabelRestart, Enabled: wanted && (p == Running || p == Failed), Action: restart},
	}
}

// appStatus is the status line and icon for the App's phase.
func appStatus(app *resource.App, phase Phase, detail string) (string, Icon) {
	switch phase {
	case Running:
		return "Running — " + Summary(app), IconRunning
	case Starting:
		return "Starting… " + detail, IconStarting
	case Stopping:
		return "Stopping…", IconStarting
	case Failed:
		return "Failed: " + firstLine(detail), IconError
	case Deleting:
		return "Deleting…", IconStarting
	case Suspended:
		return "Suspended — the next " + resource.EngineTitle(engineOf(app)) + " request wakes it", IconStopped
	}
	return "Stopped", IconStopped
}

// machines is the Machines submenu: each VM with its phase as the CLI
// shows it (the reason of a failure, the boot step of a start), opening its
// Start, Stop and Restart.
func machines(vms []resource.VM, boots map[string]string) []Item {
	if len(vms) == 0 {
		return []Item{{Key: "no-machines", Label: LabelNoMachines}}
	}
	vms = slices.Clone(vms)
	slices.SortFunc(vms, func(a, b resource.VM) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	items := make([]Item, len(vms))
	for i := range vms {
		vm := &vms[i]
		shared, reason := vm.PhaseAndReason()
		label := vm.Metadata.Name + " — " + shared
		switch step := boots[VMKey(vm.Metadata.Namespace, vm.Metadata.Name)]; {
		case shared == resource.PhaseFailed:
			label += " (" + reason + ")"
		case shared == resource.PhaseStarting && step != "":
			label += ": " + step
		}
		target := func(d Do) Action { return Action{Do: d, Namespace: vm.Metadata.Namespace, Name: vm.Metadata.Name} }
		key := "vm/" + VMKey(vm.Metadata.Namespace, vm.Metadata.Name)
		items[i] = Item{Key: key, Label: label, Enabled: true,
			Children: controls(key+"/", vm.Spec.Running, phaseOf(shared, vm.Spec.Running), target(DoStartVM), target(DoStopVM), target(DoRestartVM))}
	}
	return items
}

// maxStatus bounds the status line, in characters: a tray menu is narrow.
const maxStatus = 80

// firstLine keeps a failure's first line, at most maxStatus characters.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > maxStatus {
		s = string(r[:maxStatus-1]) + "…"
	}
	return s
}
