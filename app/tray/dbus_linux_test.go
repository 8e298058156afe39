package tray

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// This file is the desktop's side of the tray protocol, for the end-to-end
// test: a StatusNotifierWatcher (the registry a desktop's tray runs, which
// the tray registers with) and a reader of the menu the tray exports over
// com.canonical.dbusmenu, which is how every Linux tray host shows it.

const (
	watcherName  = "org.kde.StatusNotifierWatcher"
	watcherPath  = dbus.ObjectPath("/StatusNotifierWatcher")
	watcherIface = "org.kde.StatusNotifierWatcher"
	itemPath     = dbus.ObjectPath("/StatusNotifierItem")
	itemIface    = "org.kde.StatusNotifierItem"
	menuPath     = dbus.ObjectPath("/StatusNotifierMenu")
	menuIface    = "com.canonical.dbusmenu"
)

// watcher is a minimal StatusNotifierWatcher: it records who registered.
type watcher struct {
	conn       *dbus.Conn
	props      *prop.Properties
	mu         sync.Mutex
	items      []string
	registered chan string
}

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	id := service
	if strings.HasPrefix(service, "/") {
		id = string(sender) + service
	}
	w.mu.Lock()
	w.items = append(w.items, id)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust(watcherIface, "RegisteredStatusNotifierItems", items)
	w.conn.Emit(watcherPath, watcherIface+".StatusNotifierItemRegistered", id)
	w.registered <- id
	return nil
}

func (w *watcher) RegisterStatusNotifierHost(dbus.Sender, string) *dbus.Error { return nil }

const watcherXML = `<interface name="org.kde.StatusNotifierWatcher">
 <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
 <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
 <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
 <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
 <property name="ProtocolVersion" type="i" access="read"/>
 <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
</interface>`

// startWatcher runs a watcher on the session bus at address.
func startWatcher(t testing.TB, address string) (*watcher, *dbus.Conn) {
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatalf("connect to the private session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{conn: conn, registered: make(chan string, 4)}
	if err := conn.Export(w, watcherPath, watcherIface); err != nil {
		t.Fatal(err)
	}
	w.props, err = prop.Export(conn, watcherPath, map[string]map[string]*prop.Prop{watcherIface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	node := `<node>` + watcherXML + introspect.IntrospectDataString + prop.IntrospectDataString + `</node>`
	if err := conn.Export(introspect.Introspectable(node), watcherPath, "org.freedesktop.DBus.Introspectable"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(watcherName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (%v)", watcherName, err, reply)
	}
	return w, conn
}

// awaitTooltip waits until the tray's tooltip, as a tray host reads it,
// is want.
func (m trayMenu) awaitTooltip(want string) {
	m.t.Helper()
	var title string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		v, err := m.item.GetProperty(itemIface + ".ToolTip")
		if err != nil {
			m.t.Fatalf("the tray's tooltip: %v", err)
		}
		// (icon name, icons, title, description)
		if fields, ok := v.Value().([]any); ok && len(fields) == 4 {
			if title, _ = fields[2].(string); title == want {
				return
			}
		}
	}
	m.t.Fatalf("the tooltip says %q, not %q", title, want)
}

// menuItem is one entry of an exported menu, as a tray host reads it.
type menuItem struct {
	ID       int32
	Label    string
	Enabled  bool
	Children []menuItem
}

// trayMenu reads the menu of the tray on the bus under dest.
type trayMenu struct {
	t    testing.TB
	obj  dbus.BusObject // the menu
	item dbus.BusObject // the StatusNotifierItem, for its tooltip
	// layouts counts the menu's LayoutUpdated signals (countLayouts).
	layouts *atomic.Int64
}

// countLayouts counts the LayoutUpdated signals of menus on conn's bus
// from now on.
func countLayouts(t testing.TB, conn *dbus.Conn) *atomic.Int64 {
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(menuPath), dbus.WithMatchInterface(menuIface),
		dbus.WithMatchMember("LayoutUpdated")); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 64)
	conn.Signal(signals)
	n := &atomic.Int64{}
	go func() {
		for s := range signals {
			if s.Name == menuIface+".LayoutUpdated" {
				n.Add(1)
			}
		}
	}()
	return n
}

// revision calls GetLayout for the whole menu and its revision, which
// changes with every change to the menu.
func (m trayMenu) revision() ([]menuItem, uint32, error) {
	var revision uint32
	var root struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := m.obj.Call(menuIface+".GetLayout", 0, int32(0), int32(-1), []string{}).Store(&revision, &root); err != nil {
		return nil, 0, err
	}
	items, err := children(root.Children)
	return items, revision, err
}

func children(vs []dbus.Variant) ([]menuItem, error) {
	var out []menuItem
	for _, v := range vs {
		fields, ok := v.Value().([]any)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("a menu item of an unexpected shape: %v", v)
		}
		props, _ := fields[1].(map[string]dbus.Variant)
		if t, ok := props["type"]; ok && t.Value() == "separator" {
			continue
		}
		it := menuItem{ID: fields[0].(int32), Enabled: true}
		if l, ok := props["label"]; ok {
			it.Label, _ = l.Value().(string)
		}
		if e, ok := props["enabled"]; ok {
			it.Enabled, _ = e.Value().(bool)
		}
		kids, _ := fields[2].([]dbus.Variant)
		var err error
		if it.Children, err = children(kids); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// settled is how long a menu stays unchanged before the tests take it as
// what a person would see and click: the tray builds a new menu an item
// at a time, and a click on an item that is still being added can be lost.
const settled = 300 * time.Millisecond

// await polls the menu until ok accepts it and it has settled: the tray
// changes its menu asynchronously, with new ids when its shape changes.
func (m trayMenu) await(what string, ok func([]menuItem) bool) []menuItem {
	m.t.Helper()
	return m.awaitWithin(what, 30*time.Second, ok)
}

// awaitWithin is await that waits up to within.
func (m trayMenu) awaitWithin(what string, within time.Duration, ok func([]menuItem) bool) []menuItem {
	m.t.Helper()
	var items []menuItem
	var err error
	var seen uint32
	var since time.Time
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var rev uint32
		if items, rev, err = m.revision(); err != nil || !ok(items) {
			since = time.Time{}
			continue
		}
		if since.IsZero() || rev != seen {
			seen, since = rev, time.Now()
		}
		if time.Since(since) >= settled {
			return items
		}
	}
	m.t.Fatalf("the tray menu never showed %s; last %v (%v)", what, labels(items), err)
	return nil
}

// awaitStatus waits until the menu's first line starts with prefix.
func (m trayMenu) awaitStatus(prefix string) []menuItem {
	m.t.Helper()
	return m.await(fmt.Sprintf("the status %q", prefix), func(items []menuItem) bool {
		return len(items) > 0 && strings.HasPrefix(items[0].Label, prefix)
	})
}

// click clicks the item labelled label as a tray host does: only when it
// is enabled (over D-Bus a disabled item can be clicked too).
func (m trayMenu) click(items []menuItem, label string) {
	m.t.Helper()
	it, ok := find(items, label)
	if !ok || !it.Enabled {
		m.t.Fatalf("no enabled item %q in %v", label, labels(items))
	}
	if err := m.obj.Call(menuIface+".Event", 0, it.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err; err != nil {
		m.t.Fatalf("click %q: %v", label, err)
	}
}

func find(items []menuItem, label string) (menuItem, bool) {
	for _, it := range items {
		if it.Label == label {
			return it, true
		}
		if found, ok := find(it.Children, label); ok {
			return found, true
		}
	}
	return menuItem{}, false
}

func labels(items []menuItem) []string {
	var out []string
	for _, it := range items {
		s := it.Label
		if !it.Enabled {
			s += " (disabled)"
		}
		out = append(out, s)
	}
	return out
}

// notifications is a desktop's notification server: it keeps what the
// tray asks it to show.
type notifications struct {
	shown chan [2]string // title, body
}

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.shown <- [2]string{summary, body}
	return 1, nil
}

// serveNotifications owns org.freedesktop.Notifications on conn's bus.
func serveNotifications(t testing.TB, conn *dbus.Conn) *notifications {
	n := &notifications{shown: make(chan [2]string, 16)}
	if err := conn.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v (%v)", err, reply)
	}
	return n
}

// await returns the first notification titled title.
func (n *notifications) await(t testing.TB, title string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-n.shown:
			if got[0] == title {
				return got[1]
			}
		case <-timeout:
			t.Fatalf("no notification %q", title)
		}
	}
}
