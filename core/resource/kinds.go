package resource

import (
	"fmt"
	"sort"
	"strings"
)

// Kind describes one kind to the store, the API and the CLI.
type Kind struct {
	Name       string   // App
	Plural     string   // apps: the path segment of its collection
	ShortNames []string // accepted by the CLI besides the singular and plural
	Namespaced bool
	// LabelNames restricts names to DNS labels (no dots), for kinds whose
	// names become host names or file names; others take DNS subdomains.
	LabelNames bool
	// SpecField is the top-level JSON field the user writes: spec, or data
	// for a ConfigMap. A change to it bumps generation.
	SpecField string
	// HasStatus tells whether the kind has a status written through /status.
	HasStatus bool
	New       func() Object
	// Default fills unset fields of a new or updated object.
	Default func(Object)
	// Validate checks obj; old is the stored object on update, nil on create.
	Validate func(obj, old Object) []FieldError
	// ValidatePatch, when set, checks a merge patch of metadata and spec
	// for what the merged object cannot show: a zero that Default would
	// replace, which a patch must ask for with null.
	ValidatePatch func(patch []byte) []FieldError
}

// Singular is the lower-case kind name, as the CLI and messages use it.
func (k *Kind) Singular() string { return strings.ToLower(k.Name) }

var kinds = map[string]*Kind{}

func register(k *Kind) { kinds[k.Name] = k }

// KindOf returns the registered kind named name (App, VM, ConfigMap).
func KindOf(name string) (*Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Kinds returns every registered kind, sorted by name.
func Kinds() []*Kind {
	out := make([]*Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupKind finds a kind by any name a person may type: its name, singular,
// plural or a short name, in any case.
func LookupKind(s string) (*Kind, error) {
	l := strings.ToLower(s)
	var names []string
	for _, k := range Kinds() {
		if l == k.Singular() || l == k.Plural {
			return k, nil
		}
		for _, short := range k.ShortNames {
			if l == short {
				return k, nil
			}
		}
		names = append(names, k.Plural)
	}
	return nil, fmt.Errorf("unknown kind %q: use one of %s", s, strings.Join(names, ", "))
}

// NewObject returns an empty object of kind with its type metadata set.
func NewObject(k *Kind) Object {
	obj := k.New()
	*obj.GetTypeMeta() = TypeMeta{APIVersion: APIVersion, Kind: k.Name}
	return obj
}
