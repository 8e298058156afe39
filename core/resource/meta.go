package resource

import (
	"strings"
	"time"
)

const (
	// Group is the API group of every kind.
	Group = "paddock.dev"
	// APIVersion is the apiVersion every object carries.
	APIVersion = Group + "/v1alpha1"
	// DefaultNamespace is the namespace of a namespaced object that names none.
	DefaultNamespace = "default"

	// FinalizerCleanup is set by a resource's own controller on the resource
	// and removed by it once its cleanup has run.
	FinalizerCleanup = Group + "/cleanup"
	// ownedByPrefix starts the finalizer a parent sets on its child to
	// block deleting the child directly.
	ownedByPrefix = Group + "/owned-by-"

	// AnnotationRestartRequested asks a VM's controller for one restart.
	AnnotationRestartRequested = Group + "/restartRequested"
	// AnnotationResetRequested asks a VM's controller to recreate the VM.
	AnnotationResetRequested = Group + "/resetRequested"
)

// OwnedByFinalizer is the finalizer a parent of kind ownerKind sets on its
// children, for example paddock.dev/owned-by-VM.
func OwnedByFinalizer(ownerKind string) string { return ownedByPrefix + ownerKind }

// OwnerKindOf returns the owner kind an owned-by finalizer names.
func OwnerKindOf(finalizer string) (kind string, ok bool) {
	return strings.CutPrefix(finalizer, ownedByPrefix)
}

// TypeMeta names an object's kind and API version.
type TypeMeta struct {
	APIVersion string `json:"apiVersion" doc:"Always paddock.dev/v1alpha1." example:"paddock.dev/v1alpha1"`
	Kind       string `json:"kind" doc:"The object's kind: App, VM or ConfigMap." example:"VM"`
}

// ObjectMeta is the metadata every object carries.
type ObjectMeta struct {
	Name              string            `json:"name" doc:"Unique within the kind and namespace (VM names are unique across namespaces)."`
	Namespace         string            `json:"namespace,omitempty" doc:"Namespace of a namespaced kind; default when empty."`
	UID               string            `json:"uid,omitempty" readOnly:"true" doc:"Set by the server; unique for the object's lifetime."`
	ResourceVersion   string            `json:"resourceVersion,omitempty" doc:"The global revision of the object's last write. Send it back on update to detect conflicting writes."`
	Generation        int64             `json:"generation,omitempty" readOnly:"true" doc:"Bumped on every change of spec (or data), never of status or metadata."`
	CreationTimestamp *time.Time        `json:"creationTimestamp,omitempty" readOnly:"true"`
	DeletionTimestamp *time.Time        `json:"deletionTimestamp,omitempty" readOnly:"true" doc:"Set when deletion waits for finalizers."`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty" doc:"Deletion waits until this list is empty."`
	OwnerReferences   []OwnerReference  `json:"ownerReferences,omitempty"`
}

// OwnerReference names the object that owns this one.
type OwnerReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller,omitempty" doc:"True on the reference to the managing controller's object."`
}

// Terminating reports whether deletion has begun and waits for finalizers.
func (m *ObjectMeta) Terminating() bool { return m.DeletionTimestamp != nil }

// HasFinalizer reports whether f is among the finalizers.
func (m *ObjectMeta) HasFinalizer(f string) bool {
	for _, x := range m.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// AddFinalizer adds f unless present and reports whether it changed anything.
func (m *ObjectMeta) AddFinalizer(f string) bool {
	if m.HasFinalizer(f) {
		return false
	}
	m.Finalizers = append(m.Finalizers, f)
	return true
}

// RemoveFinalizer removes f and reports whether it was present.
func (m *ObjectMeta) RemoveFinalizer(f string) bool {
	out := m.Finalizers[:0]
	for _, x := range m.Finalizers {
		if x != f {
			out = append(out, x)
		}
	}
	removed := len(out) != len(m.Finalizers)
	m.Finalizers = out
	if len(m.Finalizers) == 0 {
		m.Finalizers = nil
	}
	return removed
}

// ControllerOf returns the owner reference marked as controller, if any.
func (m *ObjectMeta) ControllerOf() (OwnerReference, bool) {
	for _, r := range m.OwnerReferences {
		if r.Controller {
			return r, true
		}
	}
	return OwnerReference{}, false
}

// OwnerOfKind returns the owner reference of the given kind, if any.
func (m *ObjectMeta) OwnerOfKind(kind string) (OwnerReference, bool) {
	for _, r := range m.OwnerReferences {
		if r.Kind == kind {
			return r, true
		}
	}
	return OwnerReference{}, false
}

// Object is implemented by every kind.
type Object interface {
	GetTypeMeta() *TypeMeta
	GetMeta() *ObjectMeta
}

// Key identifies an object: its kind, namespace (empty for cluster-scoped
// kinds) and name.
type Key struct {
	Kind      string
	Namespace string
	Name      string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + "/" + k.Name
	}
	return k.Kind + "/" + k.Namespace + "/" + k.Name
}

// KeyOf returns obj's key.
func KeyOf(obj Object) Key {
	m := obj.GetMeta()
	return Key{Kind: obj.GetTypeMeta().Kind, Namespace: m.Namespace, Name: m.Name}
}

// ControllerReference returns a reference to owner that marks it as the
// controller of the object that carries it.
func ControllerReference(owner Object) OwnerReference {
	m := owner.GetMeta()
	return OwnerReference{Kind: owner.GetTypeMeta().Kind, Name: m.Name, UID: m.UID, Controller: true}
}
