package store

import (
	"sort"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"paddock.dev/paddock/core/resource"
)

// entry is one object as the index holds it: its JSON and what selectors
// and guards need without decoding it.
type entry struct {
	key             resource.Key
	uid             string
	resourceVersion string
	labels          map[string]string
	raw             []byte
}

// index holds every stored object in memory, by kind and then by
// namespace and name.
type index struct {
	byKind map[string]map[nsName]*entry
}

type nsName struct{ namespace, name string }

func newIndex() *index { return &index{byKind: map[string]map[nsName]*entry{}} }

func (x *index) get(k resource.Key) *entry {
	return x.byKind[k.Kind][nsName{k.Namespace, k.Name}]
}

func (x *index) put(e *entry) {
	m := x.byKind[e.key.Kind]
	if m == nil {
		m = map[nsName]*entry{}
		x.byKind[e.key.Kind] = m
	}
	m[nsName{e.key.Namespace, e.key.Name}] = e
}

func (x *index) delete(k resource.Key) {
	delete(x.byKind[k.Kind], nsName{k.Namespace, k.Name})
}

// byName returns the objects of kind named name in any namespace.
func (x *index) byName(kind, name string) []*entry {
	var out []*entry
	for nn, e := range x.byKind[kind] {
		if nn.name == name {
			out = append(out, e)
		}
	}
	return out
}

// list returns the entries that match, sorted by namespace and name.
func (x *index) list(match func(resource.Key, map[string]string) bool, kind string) []*entry {
	var out []*entry
	for _, e := range x.byKind[kind] {
		if match(e.key, e.labels) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].key, out[j].key
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// matcher returns the predicate that selects what opts ask for.
func matcher(opts ListOptions) func(resource.Key, map[string]string) bool {
	sel := opts.Labels
	if sel == nil {
		sel = labels.Everything()
	}
	fsel := opts.Fields
	if fsel == nil {
		fsel = fields.Everything()
	}
	kind := opts.Kind.Name
	return func(k resource.Key, l map[string]string) bool {
		if k.Kind != kind || (opts.Namespace != "" && k.Namespace != opts.Namespace) {
			return false
		}
		if !sel.Matches(labels.Set(l)) {
			return false
		}
		return fsel.Empty() || fsel.Matches(fields.Set{"metadata.name": k.Name, "metadata.namespace": k.Namespace})
	}
}
