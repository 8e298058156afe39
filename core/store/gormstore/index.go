package gormstore

import (
	"sort"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// entry is one object as the index holds it: its JSON and what selectors
// and guards need without decoding it.
type entry struct {
	key             resource.Key
	uid             string
	resourceVersion string
	revision        int64 // resourceVersion as a number
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

// list returns the entries of kind that match, in no order.
func (x *index) list(match store.Matcher, kind string) []*entry {
	var out []*entry
	for _, e := range x.byKind[kind] {
		if match(e.key, e.labels) {
			out = append(out, e)
		}
	}
	return out
}

// sortByName sorts entries by namespace and name, as lists are.
func sortByName(entries []*entry) {
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i].key, entries[j].key
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
}

// sortByRevision sorts entries by the revision of their last write, as the
// listing a watch starts with is: its event ids then only increase.
func sortByRevision(entries []*entry) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].revision < entries[j].revision })
}
