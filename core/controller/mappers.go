package controller

import (
	"encoding/json"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Self maps an event to the key of the object that changed.
func Self(ev store.Event) ([]resource.Key, error) { return []resource.Key{ev.Key}, nil }

// ControllerOwner maps an event to the key of the changed object's
// controller owner of kind owner, so that a change to a child wakes its
// parent's controller.
func ControllerOwner(owner *resource.Kind) Mapper {
	return func(ev store.Event) ([]resource.Key, error) {
		var obj struct {
			Metadata resource.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(ev.Object, &obj); err != nil {
			return nil, err
		}
		ref, ok := obj.Metadata.ControllerOf()
		if !ok || ref.Kind != owner.Name {
			return nil, nil
		}
		key := resource.Key{Kind: owner.Name, Name: ref.Name}
		if owner.Namespaced {
			key.Namespace = ev.Key.Namespace
		}
		return []resource.Key{key}, nil
	}
}
