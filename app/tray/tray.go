package tray

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"

	"fyne.io/fyne/v2"

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
	// DockerContext names the docker context of the App's engine.
	DockerContext string
	// StartDaemon starts the instance's daemon: the installed service if
	// there is one, else a detached `paddock serve`.
	StartDaemon func(context.Context) error
	Log         *slog.Logger
}

// host is what the tray shows through: the desktop's tray, or a test's.
type host interface {
	SetSystemTrayMenu(*fyne.Menu)
	SetSystemTrayIcon(fyne.Resource)
}

// Tray turns what the follower reports into the menu and the menu's
// clicks into API calls. Its methods may be called from any goroutine.
type Tray struct {
	opts Options
	app  fyne.App
	host host
	ctx  context.Context

	mu             sync.Mutex
	state          menu.State // as the follower last reported it
	startingDaemon bool
	shown          *menu.Menu // the menu on screen
	running        bool       // whether a menu was shown: Fyne's loop runs
	fmenu          *fyne.Menu // the menu given to Fyne; only Fyne's thread uses it
	watch          watchFor   // what to announce once it happens
	settings       *settingsWindow
}

func newTray(ctx context.Context, a fyne.App, h host, opts Options) *Tray {
	return &Tray{opts: opts, app: a, host: h, ctx: ctx}
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
	settings := t.settings
	t.mu.Unlock()
	for _, n := range notes {
		t.app.SendNotification(n)
	}
	if settings != nil {
		fyne.Do(func() { settings.update(s) })
	}
	t.refresh()
}

// refresh shows the menu for the current state, when it differs from the
// one on screen: a tray host rebuilds the whole menu on each change.
func (t *Tray) refresh() {
	t.mu.Lock()
	s := t.state
	s.StartingDaemon = t.startingDaemon
	m := menu.Build(s)
	if t.shown != nil && reflect.DeepEqual(*t.shown, m) {
		t.mu.Unlock()
		return
	}
	t.shown = &m
	running := t.running
	t.running = true
	t.mu.Unlock()
	show := func() {
		// Always the same *fyne.Menu: Fyne's Linux tray shows the menu
		// it was first given once the tray is ready, which may be after
		// a later menu was set.
		if t.fmenu == nil {
			t.fmenu = fyne.NewMenu("Paddock")
		}
		t.fmenu.Items = t.fyneItems(m.Items)
		t.host.SetSystemTrayMenu(t.fmenu)
		t.host.SetSystemTrayIcon(icon.For(m.Icon))
	}
	if !running {
		show() // before Fyne's loop runs, on the thread that starts it
		return
	}
	fyne.Do(show)
}

// fyneItems draws menu items with Fyne's types.
func (t *Tray) fyneItems(items []menu.Item) []*fyne.MenuItem {
	out := make([]*fyne.MenuItem, 0, len(items))
	for _, it := range items {
		if it.Separator {
			out = append(out, fyne.NewMenuItemSeparator())
			continue
		}
		fi := fyne.NewMenuItem(it.Label, nil)
		fi.Disabled = !it.Enabled
		if it.Action.Do != menu.DoNothing {
			action := it.Action
			fi.Action = func() { t.click(action) }
		}
		if it.Children != nil {
			fi.ChildMenu = fyne.NewMenu(it.Label, t.fyneItems(it.Children)...)
		}
		if it.Action.Do == menu.DoQuit {
			fi.IsQuit = true
		}
		out = append(out, fi)
	}
	return out
}

// click runs an item's action. A host may send clicks for items it shows
// disabled (over D-Bus any item can be clicked), so an action that is not
// enabled in the current menu is ignored.
func (t *Tray) click(a menu.Action) {
	t.mu.Lock()
	ok := t.shown != nil && enabled(t.shown.Items, a)
	t.mu.Unlock()
	if !ok {
		t.opts.Log.Info("ignored a click on a disabled item", "action", a)
		return
	}
	switch a.Do {
	case menu.DoQuit:
		t.app.Quit()
	case menu.DoSettings:
		t.showSettings()
	case menu.DoShowLogs:
		t.showLogs()
	default:
		go t.run(a)
	}
}

func enabled(items []menu.Item, a menu.Action) bool {
	return slices.ContainsFunc(items, func(it menu.Item) bool {
		return (it.Enabled && it.Action == a) || enabled(it.Children, a)
	})
}

// run does an action that talks to the daemon or the OS, off the GUI's
// thread; a failure becomes a notification, since a tray has no terminal.
func (t *Tray) run(a menu.Action) {
	var err error
	switch a.Do {
	case menu.DoStart:
		err = t.setRunning(true)
	case menu.DoStop:
		err = t.setRunning(false)
	case menu.DoRestart:
		err = t.restart()
	case menu.DoStartVM:
		_, err = t.opts.Client.VMAction(t.ctx, a.Namespace, a.Name, "start", false, 0)
	case menu.DoStopVM:
		_, err = t.opts.Client.VMAction(t.ctx, a.Namespace, a.Name, "stop", false, 0)
	case menu.DoOpenShell:
		err = t.openShell()
	case menu.DoCopyDockerContext:
		t.copyDockerContext()
	case menu.DoStartDaemon:
		err = t.startDaemon()
	}
	if err != nil {
		t.opts.Log.Warn("tray action failed", "action", a, "err", err)
		t.app.SendNotification(fyne.NewNotification("Paddock", err.Error()))
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

// showLogs opens the daemon's log directory in the desktop's file viewer.
func (t *Tray) showLogs() {
	dir := t.opts.Paths.LogDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.app.SendNotification(fyne.NewNotification("Paddock", err.Error()))
		return
	}
	u := &url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	if err := t.app.OpenURL(u); err != nil {
		t.app.SendNotification(fyne.NewNotification("Paddock", "cannot open "+dir+": "+err.Error()))
	}
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
