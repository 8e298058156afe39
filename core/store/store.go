package store

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"paddock.dev/paddock/core/resource"
)

// Store is what the controllers and the API use to read and write objects.
// Every error a caller can act on is a *resource.Error.
type Store interface {
	// Get returns a copy of the object, or NotFound.
	Get(ctx context.Context, key resource.Key) (resource.Object, error)
	// List returns copies of the matching objects, sorted by namespace and
	// name, and the revision they are current at.
	List(ctx context.Context, opts ListOptions) ([]resource.Object, int64, error)
	// ListRaw is List with each object as the JSON the store holds, for
	// callers that only pass objects on.
	ListRaw(ctx context.Context, opts ListOptions) ([][]byte, int64, error)

	// Create stores a new object; its status is dropped.
	Create(ctx context.Context, obj resource.Object) (resource.Object, error)
	// Update replaces metadata and spec; status stays as stored. A
	// non-empty resourceVersion must match the stored one.
	Update(ctx context.Context, obj resource.Object) (resource.Object, error)
	// UpdateStatus replaces status only, with the same precondition.
	UpdateStatus(ctx context.Context, obj resource.Object) (resource.Object, error)
	// Patch applies an RFC 7386 JSON merge patch to the stored object and
	// writes the result as Update. A resourceVersion inside the patch is a
	// precondition.
	Patch(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error)
	// PatchStatus is Patch written as UpdateStatus.
	PatchStatus(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error)
	// Delete deletes the object, or marks it Terminating while finalizers
	// remain, and returns its last state.
	Delete(ctx context.Context, key resource.Key, opts DeleteOptions) (resource.Object, error)

	// Watch streams changes; see WatchOptions.
	Watch(ctx context.Context, opts WatchOptions) (*Watcher, error)
	// Revision is the revision of the last write.
	Revision() int64
	// Healthy reports why the last write failed (a full disk, a read-only
	// or damaged database), or nil once writes succeed.
	Healthy() error
	// Close releases the database.
	Close() error
}

// ListOptions select objects of one kind.
type ListOptions struct {
	Kind      *resource.Kind
	Namespace string          // empty: all namespaces
	Labels    labels.Selector // nil: everything
	Fields    fields.Selector // nil: everything; metadata.name and metadata.namespace are known
}

// DeleteOptions qualify a delete.
type DeleteOptions struct {
	// ResourceVersion, when set, must match the stored object's.
	ResourceVersion string
	// Owner is set by a controller deleting an object it owns; it lifts the
	// owned-by guard for the owner whose UID it carries.
	Owner *resource.OwnerReference
}

// WatchOptions select the changes a watch delivers.
type WatchOptions struct {
	ListOptions
	// ResourceVersion is the revision to resume after: every later event is
	// replayed, then live ones follow. Zero starts with an ADDED event for
	// every current object instead. A revision older than the retained log
	// fails with Gone.
	ResourceVersion int64
}

// dryRunKey marks a context whose writes are checked but not stored.
type dryRunKey struct{}

// WithDryRun returns a context under which a write (Create, Update,
// UpdateStatus, Patch, PatchStatus, Delete) is checked as it would be —
// decoded, defaulted, validated and admitted, its preconditions and
// finalizer guards tested — and answered with the object as it would be
// stored, but nothing is stored and no event is sent: the API's
// ?dryRun=All.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// IsDryRun reports whether writes under ctx are only checked (WithDryRun).
func IsDryRun(ctx context.Context) bool {
	dry, _ := ctx.Value(dryRunKey{}).(bool)
	return dry
}

// AdmitFunc accepts or rejects a create (old is nil) or an update of
// metadata and spec. Its error is returned to the writer as is; make it an
// Invalid *resource.Error naming the field.
type AdmitFunc func(ctx context.Context, r Reader, obj, old resource.Object) error

// Reader reads objects; admission checks get one.
type Reader interface {
	Get(ctx context.Context, key resource.Key) (resource.Object, error)
}
