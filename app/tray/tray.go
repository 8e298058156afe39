package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/icon"
	"paddock.dev/paddock/app/live"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
)

// Options are what the tray needs from the command that starts it.
type Options struct {
	Client *client.Client
	Paths  instance.Paths
	// Instance and Executable make the command line of Open Shell.
	Instance   string
	Executable string
	// SettingsExecutable is the program Settings… runs, as
	// `SettingsExecutable --instance Instance tray --settings`: a paddock
	// that has the settings window (the tray's own binary when it has it,
	// else the packages' paddock-settings), or one without it, which then
	// says how to get it.
	SettingsExecutable string
	// DockerContext names the docker context of the App's engine.
	DockerContext string
	// StartDaemon starts the instance's daemon: the installed service if
	// there is one, else a detached `paddock serve`.
	StartDaemon func(context.Context) error
	Log         *slog.Logger
}

// host is the desktop's tray, which shows the menu and the icon.
type host interface {
	// SetMenu shows items; a click on one calls click with its action.
	SetMenu(items []menu.Item, click func(menu.Action))
	// SetIcon shows a PNG.
	SetIcon(png []byte)
	// SetTooltip sets what hovering over the icon shows.
	SetTooltip(text string)
	// Quit takes the tray off the desktop and ends Run.
	Quit()
}

// desktop is what the tray asks of the desktop besides its tray.
type desktop interface {
	Notify(title, body string)
	CopyText(text string) error
	OpenDir(dir string) error
}

// Tray turns what the follower reports into the menu and the menu's
// clicks into API calls. Its methods may be called from any goroutine.
type Tray struct {
	opts Options
	host host
	desk desktop
	ctx  context.Context

	mu             sync.Mutex
	state          menu.State // as the follower last reported it
	startingDaemon bool
	shown          *menu.Menu // the menu on screen
	watch          watchFor   // what to announce once it happens
	settings       *settingsProcess
}

func newTray(ctx context.Context, h host, d desktop, opts Options) *Tray {
	return &Tray{opts: opts, host: h, desk: d, ctx: ctx}
}

// follow keeps the menu current until ctx ends.
func (t *Tray) follow() error {
	f := &live.Follower{Client: t.opts.Client, Socket: t.opts.Paths.Socket, Changed: t.changed, Log: t.opts.Log}
	return f.Run(t.ctx)
}

// changed takes a state from the follower.
func (t *Tray) changed(s menu.State) {
	t.mu.Lock()
	previous := t.state
	t.state = s
	if s.DaemonUp {
		t.startingDaemon = false
	}
	notes := t.watch.check(previous, s)
	t.mu.Unlock()
	for _, n := range notes {
		t.desk.Notify(n.title, n.body)
	}
	t.refresh()
}

// refresh shows the menu for the current state, when it differs from the
// one on screen: a tray host rebuilds the whole menu on each change.
func (t *Tray) refresh() {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.state
	s.StartingDaemon = t.startingDaemon
	m := menu.Build(s)
	if t.shown != nil && reflect.DeepEqual(*t.shown, m) {
		return
	}
	t.shown = &m
	// Under the lock, so that two refreshes show in the order they were
	// computed.
	t.host.SetMenu(m.Items, t.click)
	t.host.SetIcon(icon.For(m.Icon))
	t.host.SetTooltip("Paddock: " + m.Status)
}

// click runs an item's action. A host may send clicks for items it shows
// disabled (over D-Bus any item can be clicked), so an action that is not
// enabled in the current menu is ignored.
func (t *Tray) click(action menu.Action) {
	t.mu.Lock()
	ok := t.shown != nil && enabled(t.shown.Items, action)
	t.mu.Unlock()
	if !ok {
		t.opts.Log.Info("ignored a click on a disabled item", "action", action)
		return
	}
	if action.Do == menu.DoQuit {
		t.host.Quit()
		return
	}
	go t.run(action)
}

func enabled(items []menu.Item, action menu.Action) bool {
	return slices.ContainsFunc(items, func(it menu.Item) bool {
		return (it.Enabled && it.Action == action) || enabled(it.Children, action)
	})
}

// run does an action that talks to the daemon or the OS, off the tray's
// D-Bus connection; a failure becomes a notification, since a tray has no
// terminal.
func (t *Tray) run(action menu.Action) {
	var err error
	switch action.Do {
	case menu.DoStart:
		err = t.setRunning(true)
	case menu.DoStop:
		err = t.setRunning(false)
	case menu.DoRestart:
		err = t.restart()
	case menu.DoStartVM:
		err = t.vmAction(action.Namespace, action.Name, "start")
	case menu.DoStopVM:
		err = t.vmAction(action.Namespace, action.Name, "stop")
	case menu.DoRestartVM:
		err = t.vmAction(action.Namespace, action.Name, "restart")
	case menu.DoSettings:
		err = t.showSettings()
	case menu.DoOpenShell:
		err = t.openShell()
	case menu.DoCopyDockerContext:
		err = t.desk.CopyText("docker context use " + t.opts.DockerContext)
	case menu.DoShowLogs:
		err = t.desk.OpenDir(t.opts.Paths.LogDir)
	case menu.DoStartDaemon:
		err = t.startDaemon()
	}
	if err == nil || t.ctx.Err() != nil {
		return
	}
	t.opts.Log.Warn("tray action failed", "action", action, "err", err)
	if f := (failure{}); errors.As(err, &f) {
		t.desk.Notify(f.title, f.body)
	} else {
		t.desk.Notify("Paddock", err.Error())
	}
}

func (t *Tray) startDaemon() error {
	t.mu.Lock()
	t.startingDaemon = true
	t.mu.Unlock()
	t.refresh()
	err := t.opts.StartDaemon(t.ctx)
	t.mu.Lock()
	t.startingDaemon = false
	t.mu.Unlock()
	t.refresh()
	if err != nil {
		return fmt.Errorf("the daemon did not start: %w", err)
	}
	return nil
}

// appVM returns the VM the App owns, if it has one yet.
func appVM(vms []resource.VM) *resource.VM {
	for i := range vms {
		for _, ref := range vms[i].Metadata.OwnerReferences {
			if ref.Kind == resource.KindApp.Name && ref.Name == resource.AppName {
				return &vms[i]
			}
		}
	}
	return nil
}

func (t *Tray) snapshot() menu.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}
