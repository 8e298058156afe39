package store

import (
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"paddock.dev/paddock/core/resource"
)

// ParseLabelSelector parses a label selector such as app=web,tier!=db.
func ParseLabelSelector(s string) (labels.Selector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return nil, resource.Errorf(resource.ReasonBadRequest, "invalid label selector %q: %v", s, err)
	}
	return sel, nil
}

// ParseFieldSelector parses a field selector over the fields the store
// indexes: metadata.name and metadata.namespace.
func ParseFieldSelector(s string) (fields.Selector, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return nil, resource.Errorf(resource.ReasonBadRequest, "invalid field selector %q: %v", s, err)
	}
	for _, r := range sel.Requirements() {
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			return nil, resource.Errorf(resource.ReasonBadRequest,
				"invalid field selector %q: %s",
				s, fmt.Sprintf("field %q is not selectable; use metadata.name or metadata.namespace", r.Field))
		}
	}
	return sel, nil
}

// Matcher reports whether a list or watch selects the object with key and
// labels: a labels.Set, or any other form a store keeps labels in.
type Matcher func(key resource.Key, l labels.Labels) bool

// Matcher returns the predicate that selects what opts ask for.
func (opts ListOptions) Matcher() Matcher {
	sel := opts.Labels
	if sel == nil {
		sel = labels.Everything()
	}
	fsel := opts.Fields
	if fsel == nil {
		fsel = fields.Everything()
	}
	kind := opts.Kind.Name
	return func(k resource.Key, l labels.Labels) bool {
		if k.Kind != kind || (opts.Namespace != "" && k.Namespace != opts.Namespace) {
			return false
		}
		if !sel.Matches(l) {
			return false
		}
		return fsel.Empty() || fsel.Matches(fields.Set{"metadata.name": k.Name, "metadata.namespace": k.Namespace})
	}
}
