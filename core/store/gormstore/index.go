package gormstore

import (
	"iter"
	"sort"
	"strings"
	"unique"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// entry is what the index keeps of one object besides its key: what
// guards and selectors need. Its JSON stays in the database; the revision
// names it there.
type entry struct {
	revision int64 // of the object's last write: its resourceVersion
	labels   labelSet
	size     int // of its JSON, to bound what a listing reads at once
}

// labelSet is an object's labels as one interned string, each key and
// value followed by a NUL, in key order: objects with the same labels
// share it. It is a labels.Labels for selectors.
type labelSet struct{ h unique.Handle[string] }

func labelSetOf(m map[string]string) labelSet {
	keys := make([]string, 0, len(m))
	size := 0
	for k, v := range m {
		keys = append(keys, k)
		size += len(k) + len(v) + 2
	}
	sort.Strings(keys)
	var b strings.Builder
	b.Grow(size)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return labelSet{unique.Make(b.String())}
}

// each calls f with every label until it returns false.
func (l labelSet) each(f func(key, value string) bool) {
	s := l.h.Value()
	for s != "" {
		k, rest, _ := strings.Cut(s, "\x00")
		v, rest, _ := strings.Cut(rest, "\x00")
		if !f(k, v) {
			return
		}
		s = rest
	}
}

// Get returns the value of label key, or "".
func (l labelSet) Get(key string) string {
	value, _ := l.lookup(key)
	return value
}

// Has reports whether label key is set.
func (l labelSet) Has(key string) bool {
	_, ok := l.lookup(key)
	return ok
}

func (l labelSet) lookup(key string) (value string, found bool) {
	l.each(func(k, v string) bool {
		if k == key {
			value, found = v, true
		}
		return !found
	})
	return value, found
}

// Map returns the labels as a map, nil when there are none.
func (l labelSet) Map() map[string]string {
	var m map[string]string
	l.each(func(k, v string) bool {
		if m == nil {
			m = map[string]string{}
		}
		m[k] = v
		return true
	})
	return m
}

// index holds the metadata of every stored object in memory, by kind and
// then by namespace and name, as one string (see keyOf): a map of 100,000
// objects then costs about 60 bytes an object.
type index struct {
	byKind map[string]map[string]entry
}

// nsName is an object's namespace and name.
type nsName struct{ namespace, name string }

// keyOf returns the index's key of an object: its namespace, a NUL, and
// its name. Neither may hold a NUL.
func keyOf(namespace, name string) string { return namespace + "\x00" + name }

func splitKey(key string) nsName {
	namespace, name, _ := strings.Cut(key, "\x00")
	return nsName{namespace, name}
}

func newIndex() *index { return &index{byKind: map[string]map[string]entry{}} }

func (x *index) get(k resource.Key) (entry, bool) {
	e, ok := x.byKind[k.Kind][keyOf(k.Namespace, k.Name)]
	return e, ok
}

func (x *index) put(k resource.Key, e entry) {
	m := x.byKind[k.Kind]
	if m == nil {
		m = map[string]entry{}
		x.byKind[k.Kind] = m
	}
	m[keyOf(k.Namespace, k.Name)] = e
}

func (x *index) delete(k resource.Key) {
	delete(x.byKind[k.Kind], keyOf(k.Namespace, k.Name))
}

// byName returns the namespaces in which an object of kind is named name.
func (x *index) byName(kind, name string) []string {
	var out []string
	for key := range x.byKind[kind] {
		if nn := splitKey(key); nn.name == name {
			out = append(out, nn.namespace)
		}
	}
	return out
}

// item is an object of a list of one kind as the index held it: its
// namespace and name, and the revision of its state then; then its JSON.
type item struct {
	nsName
	revision int64
	raw      []byte
}

// matching yields the objects of kind that match, in no order.
func (x *index) matching(match store.Matcher, kind string) iter.Seq2[nsName, entry] {
	return func(yield func(nsName, entry) bool) {
		for key, e := range x.byKind[kind] {
			nn := splitKey(key)
			if match(resource.Key{Kind: kind, Namespace: nn.namespace, Name: nn.name}, e.labels) && !yield(nn, e) {
				return
			}
		}
	}
}

// list returns the objects of kind that match, in no order.
func (x *index) list(match store.Matcher, kind string) []item {
	var out []item
	for nn, e := range x.matching(match, kind) {
		if out == nil {
			// Most lists select most objects.
			out = make([]item, 0, len(x.byKind[kind]))
		}
		out = append(out, item{nsName: nn, revision: e.revision})
	}
	return out
}

// sortByName sorts items by namespace and name, as lists are.
func sortByName(items []item) {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
}

// sortByRevision sorts items by the revision of their last write.
func sortByRevision(items []item) {
	sort.Slice(items, func(i, j int) bool { return items[i].revision < items[j].revision })
}

// listed is an object of a watch's listing: its index key, the revision
// of its state when listed, and its labels then. The rest is read with
// its JSON.
type listed struct {
	key string
	entry
}

// listing returns the objects of kind that match, by the revision of their
// last write, as a watch's listing delivers them: its event ids then only
// increase.
func (x *index) listing(match store.Matcher, kind string) []listed {
	var out []listed
	for key, e := range x.byKind[kind] {
		nn := splitKey(key)
		if !match(resource.Key{Kind: kind, Namespace: nn.namespace, Name: nn.name}, e.labels) {
			continue
		}
		if out == nil {
			out = make([]listed, 0, len(x.byKind[kind]))
		}
		out = append(out, listed{key: key, entry: e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].revision < out[j].revision })
	return out
}
