package tray

import (
	"fmt"
	"maps"
	"sync"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"

	"paddock.dev/paddock/app/menu"
)

// dbusMenu serves the tray's menu over D-Bus as com.canonical.dbusmenu,
// the protocol by which every Linux tray host reads a StatusNotifierItem's
// menu, in the place of the menu fyne.io/systray serves there: systray
// numbers its items from a counter, so a menu built again gets new ids,
// and it signals each item it adds or changes (17 LayoutUpdated signals
// as the tray started). Here an item's id follows its key (menu.Item.Key)
// for the life of the process, so an unchanged menu keeps its ids and a
// click on an id of an earlier menu names what it named there; and each
// new menu is one signal: LayoutUpdated when items come or go,
// ItemsPropertiesUpdated when only labels or states change.
type dbusMenu struct {
	conn *dbus.Conn // nil until export

	mu       sync.Mutex
	revision uint32
	root     *menuNode
	byID     map[int32]*menuNode // the nodes of root
	ids      map[string]int32    // every key given an id, with it
	actions  map[int32]menu.Action
	click    func(menu.Action)
}

// menuNode is one item as the protocol carries it.
type menuNode struct {
	id       int32
	props    map[string]dbus.Variant
	children []*menuNode
}

// layout is a node as GetLayout returns it: (ia{sv}av).
type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

const (
	dbusMenuPath  = dbus.ObjectPath("/StatusNotifierMenu")
	dbusMenuIface = "com.canonical.dbusmenu"
)

func newDBusMenu() *dbusMenu {
	return &dbusMenu{root: &menuNode{props: map[string]dbus.Variant{}}, byID: map[int32]*menuNode{},
		ids: map[string]int32{}, actions: map[int32]menu.Action{}}
}

// export serves the menu on conn at /StatusNotifierMenu, the path the
// StatusNotifierItem names as its menu, replacing whatever was served
// there before.
func (m *dbusMenu) export(conn *dbus.Conn) error {
	methods := map[string]any{
		"GetLayout":          m.getLayout,
		"GetGroupProperties": m.getGroupProperties,
		"GetProperty":        m.getProperty,
		"Event":              m.event,
		"EventGroup":         m.eventGroup,
		"AboutToShow":        func(int32) (bool, *dbus.Error) { return false, nil },
		"AboutToShowGroup":   func([]int32) ([]int32, []int32, *dbus.Error) { return []int32{}, []int32{}, nil },
	}
	if err := conn.ExportMethodTable(methods, dbusMenuPath, dbusMenuIface); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := prop.Export(conn, dbusMenuPath, map[string]map[string]*prop.Prop{dbusMenuIface: {
		"Version":       {Value: uint32(3), Emit: prop.EmitTrue},
		"TextDirection": {Value: "ltr", Emit: prop.EmitTrue},
		"Status":        {Value: "normal", Emit: prop.EmitTrue},
		"IconThemePath": {Value: []string{}, Emit: prop.EmitTrue},
	}})
	if err != nil {
		return err
	}
	node := &introspect.Node{Name: string(dbusMenuPath), Interfaces: []introspect.Interface{
		introspect.IntrospectData, prop.IntrospectData, dbusMenuIntrospection}}
	if err := conn.Export(introspect.NewIntrospectable(node), dbusMenuPath, "org.freedesktop.DBus.Introspectable"); err != nil {
		return err
	}
	m.conn = conn
	if len(m.root.children) == 0 {
		return nil // the first SetMenu signals
	}
	// A host may have read the menu served before: say it changed.
	return m.signalLayout()
}

// SetMenu shows items, with one signal when they differ from the menu
// shown.
func (m *dbusMenu) SetMenu(items []menu.Item, click func(menu.Action)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.click = click
	root := &menuNode{props: map[string]dbus.Variant{}, children: m.nodes(items, "")}
	before := m.byID
	m.root, m.byID = root, map[int32]*menuNode{}
	index(root.children, m.byID)
	if m.conn == nil {
		return
	}
	if !sameTree(before, m.byID) {
		m.signalLayout()
		return
	}
	var changed []itemProps
	for id, n := range m.byID {
		if !maps.Equal(n.props, before[id].props) {
			changed = append(changed, itemProps{id, n.props})
		}
	}
	if len(changed) > 0 {
		m.revision++
		m.conn.Emit(dbusMenuPath, dbusMenuIface+".ItemsPropertiesUpdated", changed, []removedProps{})
	}
}

// itemProps and removedProps are the two arrays of ItemsPropertiesUpdated:
// a(ia{sv}) and a(ias).
type itemProps struct {
	ID    int32
	Props map[string]dbus.Variant
}

type removedProps struct {
	ID    int32
	Names []string
}

// nodes makes the nodes of items, whose parent has key parent, giving
// each the id of its key.
func (m *dbusMenu) nodes(items []menu.Item, parent string) []*menuNode {
	out := make([]*menuNode, 0, len(items))
	separators := 0
	for _, it := range items {
		key, props := it.Key, map[string]dbus.Variant{}
		if it.Separator {
			separators++
			key = fmt.Sprintf("%s/separator-%d", parent, separators)
			props["type"] = dbus.MakeVariant("separator")
		} else {
			props["label"] = dbus.MakeVariant(it.Label)
			props["enabled"] = dbus.MakeVariant(it.Enabled)
		}
		id, ok := m.ids[key]
		if !ok {
			id = int32(len(m.ids) + 1) // 0 is the root's
			m.ids[key] = id
		}
		m.actions[id] = it.Action
		n := &menuNode{id: id, props: props}
		if it.Children != nil {
			props["children-display"] = dbus.MakeVariant("submenu")
			n.children = m.nodes(it.Children, key)
		}
		out = append(out, n)
	}
	return out
}

// index adds nodes and their descendants to byID.
func index(nodes []*menuNode, byID map[int32]*menuNode) {
	for _, n := range nodes {
		byID[n.id] = n
		index(n.children, byID)
	}
}

// sameTree reports whether a and b hold the same ids with the same
// children in the same order.
func sameTree(a, b map[int32]*menuNode) bool {
	if len(a) != len(b) {
		return false
	}
	for id, n := range b {
		was, ok := a[id]
		if !ok || len(was.children) != len(n.children) {
			return false
		}
		for i := range n.children {
			if was.children[i].id != n.children[i].id {
				return false
			}
		}
	}
	return true
}

// signalLayout says that the whole menu changed.
func (m *dbusMenu) signalLayout() error {
	m.revision++
	return m.conn.Emit(dbusMenuPath, dbusMenuIface+".LayoutUpdated", m.revision, int32(0))
}

// node returns the node with id (0: the root), under m.mu.
func (m *dbusMenu) node(id int32) (*menuNode, bool) {
	if id == 0 {
		return m.root, true
	}
	n, ok := m.byID[id]
	return n, ok
}

func (m *dbusMenu) getLayout(parent, depth int32, names []string) (uint32, layout, *dbus.Error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.node(parent)
	if !ok {
		return 0, layout{}, noItem(parent)
	}
	return m.revision, n.layout(depth, names), nil
}

// layout is n with its descendants depth levels down (-1: all), with the
// properties names (none: all).
func (n *menuNode) layout(depth int32, names []string) layout {
	l := layout{ID: n.id, Props: pick(n.props, names), Children: []dbus.Variant{}}
	if depth != 0 {
		for _, c := range n.children {
			l.Children = append(l.Children, dbus.MakeVariant(c.layout(depth-1, names)))
		}
	}
	return l
}

func pick(props map[string]dbus.Variant, names []string) map[string]dbus.Variant {
	if len(names) == 0 {
		return maps.Clone(props)
	}
	out := map[string]dbus.Variant{}
	for _, name := range names {
		if v, ok := props[name]; ok {
			out[name] = v
		}
	}
	return out
}

func (m *dbusMenu) getGroupProperties(ids []int32, names []string) ([]itemProps, *dbus.Error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []itemProps{}
	for _, id := range ids {
		if n, ok := m.node(id); ok {
			out = append(out, itemProps{id, pick(n.props, names)})
		}
	}
	return out, nil
}

func (m *dbusMenu) getProperty(id int32, name string) (dbus.Variant, *dbus.Error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.node(id)
	if !ok {
		return dbus.Variant{}, noItem(id)
	}
	v, ok := n.props[name]
	if !ok {
		return dbus.Variant{}, dbus.MakeFailedError(fmt.Errorf("menu item %d has no property %q", id, name))
	}
	return v, nil
}

// event takes a host's event on item id. A click passes on the action of
// the item the id was given to, shown now or in an earlier menu (the
// tray ignores an action its menu does not offer now).
func (m *dbusMenu) event(id int32, event string, _ dbus.Variant, _ uint32) *dbus.Error {
	if event != "clicked" {
		return nil
	}
	m.mu.Lock()
	action, ok := m.actions[id]
	click := m.click
	m.mu.Unlock()
	if !ok {
		return noItem(id)
	}
	if action.Do != menu.DoNothing && click != nil {
		click(action)
	}
	return nil
}

func (m *dbusMenu) eventGroup(events []struct {
	ID        int32
	Event     string
	Data      dbus.Variant
	Timestamp uint32
}) ([]int32, *dbus.Error) {
	unknown := []int32{}
	for _, e := range events {
		if err := m.event(e.ID, e.Event, e.Data, e.Timestamp); err != nil {
			unknown = append(unknown, e.ID)
		}
	}
	return unknown, nil
}

func noItem(id int32) *dbus.Error {
	return dbus.MakeFailedError(fmt.Errorf("no menu item %d", id))
}

// dbusMenuIntrospection is the interface as the protocol defines it.
var dbusMenuIntrospection = introspect.Interface{
	Name: dbusMenuIface,
	Methods: []introspect.Method{
		{Name: "GetLayout", Args: []introspect.Arg{{Name: "parentId", Type: "i", Direction: "in"}, {Name: "recursionDepth", Type: "i", Direction: "in"},
			{Name: "propertyNames", Type: "as", Direction: "in"}, {Name: "revision", Type: "u", Direction: "out"}, {Name: "layout", Type: "(ia{sv}av)", Direction: "out"}}},
		{Name: "GetGroupProperties", Args: []introspect.Arg{{Name: "ids", Type: "ai", Direction: "in"}, {Name: "propertyNames", Type: "as", Direction: "in"},
			{Name: "properties", Type: "a(ia{sv})", Direction: "out"}}},
		{Name: "GetProperty", Args: []introspect.Arg{{Name: "id", Type: "i", Direction: "in"}, {Name: "name", Type: "s", Direction: "in"}, {Name: "value", Type: "v", Direction: "out"}}},
		{Name: "Event", Args: []introspect.Arg{{Name: "id", Type: "i", Direction: "in"}, {Name: "eventId", Type: "s", Direction: "in"},
			{Name: "data", Type: "v", Direction: "in"}, {Name: "timestamp", Type: "u", Direction: "in"}}},
		{Name: "EventGroup", Args: []introspect.Arg{{Name: "events", Type: "a(isvu)", Direction: "in"}, {Name: "idErrors", Type: "ai", Direction: "out"}}},
		{Name: "AboutToShow", Args: []introspect.Arg{{Name: "id", Type: "i", Direction: "in"}, {Name: "needUpdate", Type: "b", Direction: "out"}}},
		{Name: "AboutToShowGroup", Args: []introspect.Arg{{Name: "ids", Type: "ai", Direction: "in"}, {Name: "updatesNeeded", Type: "ai", Direction: "out"},
			{Name: "idErrors", Type: "ai", Direction: "out"}}},
	},
	Signals: []introspect.Signal{
		{Name: "ItemsPropertiesUpdated", Args: []introspect.Arg{{Name: "updatedProps", Type: "a(ia{sv})"}, {Name: "removedProps", Type: "a(ias)"}}},
		{Name: "LayoutUpdated", Args: []introspect.Arg{{Name: "revision", Type: "u"}, {Name: "parent", Type: "i"}}},
		{Name: "ItemActivationRequested", Args: []introspect.Arg{{Name: "id", Type: "i"}, {Name: "timestamp", Type: "u"}}},
	},
	Properties: []introspect.Property{
		{Name: "Version", Type: "u", Access: "read"},
		{Name: "TextDirection", Type: "s", Access: "read"},
		{Name: "Status", Type: "s", Access: "read"},
		{Name: "IconThemePath", Type: "as", Access: "read"},
	},
}
