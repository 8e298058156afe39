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
}

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
			{Label: status},
			separator,
			{Label: LabelStartDaemon, Enabled: !s.StartingDaemon, Action: Action{Do: DoStartDaemon}},
			{Label: LabelShowLogs, Enabled: true, Action: Action{Do: DoShowLogs}},
			separator,
			{Label: LabelQuit, Enabled: true, Action: Action{Do: DoQuit}},
		}}
	}
	phase, detail := AppPhase(s.App)
	status, icon := appStatus(s.App, phase, detail)
	wanted := s.App != nil && s.App.Spec.Running
	moby := s.App != nil && engineOf(s.App) == resource.EngineMoby
	return Menu{Status: status, Icon: icon, Items: []Item{
		{Label: status},
		separator,
		{Label: LabelStart, Enabled: !wanted && phase != Deleting, Action: Action{Do: DoStart}},
		{Label: LabelStop, Enabled: wanted && phase != Deleting, Action: Action{Do: DoStop}},
		{Label: LabelRestart, Enabled: wanted && (phase == Running || phase == Failed), Action: Action{Do: DoRestart}},
		separator,
		{Label: LabelSettings, Enabled: phase != Deleting, Action: Action{Do: DoSettings}},
		{Label: LabelOpenShell, Enabled: phase == Running, Action: Action{Do: DoOpenShell}},
		{Label: LabelCopyContext, Enabled: phase == Running && moby, Action: Action{Do: DoCopyDockerContext}},
		{Label: LabelShowLogs, Enabled: true, Action: Action{Do: DoShowLogs}},
		{Label: LabelMachines, Enabled: true, Children: machines(s.VMs)},
		separator,
		{Label: LabelQuit, Enabled: true, Action: Action{Do: DoQuit}},
	}}
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
	}
	return "Stopped", IconStopped
}

// machines is the Machines submenu: each VM with its phase, opening its
// Start and Stop.
func machines(vms []resource.VM) []Item {
	if len(vms) == 0 {
		return []Item{{Label: LabelNoMachines}}
	}
	vms = slices.Clone(vms)
	slices.SortFunc(vms, func(a, b resource.VM) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	items := make([]Item, len(vms))
	for i := range vms {
		vm := &vms[i]
		phase, _ := VMPhase(vm)
		target := func(d Do) Action { return Action{Do: d, Namespace: vm.Metadata.Namespace, Name: vm.Metadata.Name} }
		deleting := phase == Deleting
		items[i] = Item{Label: vm.Metadata.Name + " — " + phase.String(), Enabled: true, Children: []Item{
			{Label: LabelStart, Enabled: !vm.Spec.Running && !deleting, Action: target(DoStartVM)},
			{Label: LabelStop, Enabled: vm.Spec.Running && !deleting, Action: target(DoStopVM)},
		}}
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
