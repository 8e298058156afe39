package tray

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// TestMenuOverDBus serves the tray's menu on a private session bus and
// reads it as a tray host does: each new menu is one signal, an unchanged
// menu keeps its ids, also when it comes back after another, and a click
// on an id of an earlier menu passes on the action shown there, never the
// action of the item that now stands in its place.
func TestMenuOverDBus(t *testing.T) {
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		requireE2E(t, "dbus-daemon") // skips without PADDOCK_E2E=1, else fails
	}
	dir, err := os.MkdirTemp("", "pdmenu") // short: socket paths are length-limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	address := startBus(t, dir)
	served, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { served.Close() })
	host, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	signals := make(chan *dbus.Signal, 64)
	host.Signal(signals)
	if err := host.AddMatchSignal(dbus.WithMatchObjectPath(dbusMenuPath), dbus.WithMatchInterface(dbusMenuIface)); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var clicked []menu.Action
	click := func(a menu.Action) {
		mu.Lock()
		clicked = append(clicked, a)
		mu.Unlock()
	}
	m := newDBusMenu()
	// The menu before the export, as the tray's first, shows with it.
	m.SetMenu(menu.Build(menu.State{}).Items, click)
	if err := m.export(served); err != nil {
		t.Fatal(err)
	}
	tm := trayMenu{t: t, obj: host.Object(served.Names()[0], dbusMenuPath)}
	// signalled waits for the signals of one change, and returns how many
	// of each came.
	signalled := func() (layouts, props int) {
		t.Helper()
		host.Object(served.Names()[0], dbusMenuPath).Call("org.freedesktop.DBus.Peer.Ping", 0) // the signals before its answer
		for {
			select {
			case s := <-signals:
				switch s.Name {
				case dbusMenuIface + ".LayoutUpdated":
					layouts++
				case dbusMenuIface + ".ItemsPropertiesUpdated":
					props++
				}
			case <-time.After(200 * time.Millisecond):
				return layouts, props
			}
		}
	}
	if l, p := signalled(); l != 1 || p != 0 {
		t.Errorf("export: %d LayoutUpdated, %d ItemsPropertiesUpdated; want 1, 0", l, p)
	}

	vms := func(names ...string) []resource.VM {
		var out []resource.VM
		for _, n := range names {
			vm := resource.VM{Metadata: resource.ObjectMeta{Name: n, Namespace: "default"}}
			vm.Spec.Running = true
			out = append(out, vm)
		}
		return out
	}
	up := menu.State{DaemonUp: true, VMs: vms("a", "b")}
	m.SetMenu(menu.Build(up).Items, click)
	if l, p := signalled(); l != 1 || p != 0 {
		t.Errorf("a new menu: %d LayoutUpdated, %d ItemsPropertiesUpdated; want 1, 0", l, p)
	}
	first := ids(t, tm)
	m.SetMenu(menu.Build(up).Items, click)
	if l, p := signalled(); l != 0 || p != 0 {
		t.Errorf("the same menu again: %d LayoutUpdated, %d ItemsPropertiesUpdated; want none", l, p)
	}
	starting := up
	starting.StartingDaemon = true
	starting.App = &resource.App{Metadata: resource.ObjectMeta{Name: resource.AppName}}
	starting.App.Spec.Running = true
	m.SetMenu(menu.Build(starting).Items, click)
	if l, p := signalled(); l != 0 || p != 1 {
		t.Errorf("new labels and states: %d LayoutUpdated, %d ItemsPropertiesUpdated; want 0, 1", l, p)
	}
	if now := ids(t, tm); !sameIDs(first, now) {
		t.Errorf("new labels changed the ids:\n%v\n%v", first, now)
	}
	// The daemon goes and comes back: the menu it had comes back with its
	// ids.
	m.SetMenu(menu.Build(menu.State{}).Items, click)
	m.SetMenu(menu.Build(up).Items, click)
	if l, _ := signalled(); l != 2 {
		t.Errorf("two new menus: %d LayoutUpdated, want 2", l)
	}
	if now := ids(t, tm); !sameIDs(first, now) {
		t.Errorf("the same menu has new ids:\n%v\n%v", first, now)
	}

	// VM a goes and c comes: c's items stand where a's stood.
	stopA := first["Machines/a — Pending/Stop"]
	m.SetMenu(menu.Build(menu.State{DaemonUp: true, VMs: vms("b", "c")}).Items, click)
	now := ids(t, tm)
	if now["Machines/c — Pending/Stop"] == stopA {
		t.Fatal("c's Stop has the id a's had")
	}
	if err := tm.obj.Call(dbusMenuIface+".Event", 0, stopA, "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatalf("a click on a's Stop of the earlier menu: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := (menu.Action{Do: menu.DoStopVM, Namespace: "default", Name: "a"}); len(clicked) != 1 || clicked[0] != want {
		t.Errorf("a click on a's Stop of the earlier menu gave %+v, want %+v", clicked, want)
	}
}

// ids reads the menu's ids by the path of labels to each item.
func ids(t *testing.T, m trayMenu) map[string]int32 {
	t.Helper()
	items, _, err := m.revision()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int32{}
	var walk func(string, []menuItem)
	walk = func(prefix string, items []menuItem) {
		for _, it := range items {
			label := it.Label
			if strings.HasPrefix(label, "Daemon") || strings.HasPrefix(label, "Starting") || strings.HasPrefix(label, "Stopped") {
				label = "status" // the status line's label changes
			}
			out[prefix+label] = it.ID
			walk(prefix+label+"/", it.Children)
		}
	}
	walk("", items)
	return out
}

func sameIDs(a, b map[string]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
