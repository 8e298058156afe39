package gormstore

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/uuid"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Create stores a new object. Validation and admission run before the
// write lock is taken: admission may read other objects and ask the host.
func (s *DB) Create(ctx context.Context, obj resource.Object) (resource.Object, error) {
	k, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	if err := resource.DefaultAndValidate(k, obj, nil); err != nil {
		return nil, err
	}
	if err := s.admitWrite(ctx, obj, nil); err != nil {
		return nil, err
	}
	return s.write(ctx, func() (staged, error) {
		key := resource.KeyOf(obj)
		if _, exists := s.newestRevision(key); exists {
			return staged{}, resource.Errorf(resource.ReasonAlreadyExists, "%s already exists", resource.Describe(key))
		}
		if k == resource.KindVM {
			if same := s.namespacesNamed(k.Name, key.Name); len(same) > 0 {
				return staged{}, resource.Errorf(resource.ReasonAlreadyExists,
					"a vm named %q already exists in namespace %q: VM names are unique across namespaces", key.Name, same[0])
			}
		}
		m := obj.GetMeta()
		created := now()
		m.UID = uuid.NewString()
		m.Generation = 1
		m.CreationTimestamp = &created
		m.DeletionTimestamp = nil
		if k.HasStatus {
			// Status is the controllers' to write, through /status.
			var err error
			if obj, err = withField(k, obj, "status", nil); err != nil {
				return staged{}, err
			}
		}
		return s.stageUnlessDry(ctx, store.Added, obj)
	})
}

// maxWriteAttempts bounds how often a spec write is prepared again because
// the object changed while it was being admitted.
const maxWriteAttempts = 8

// writeSpec writes the metadata and spec that build makes from the stored
// object's JSON. build, validation and admission run without the write
// lock; under it the write goes through only if the object is still at the
// revision they saw, and otherwise they run again.
func (s *DB) writeSpec(ctx context.Context, k *resource.Kind, key resource.Key, build func(raw []byte) (resource.Object, error)) (resource.Object, error) {
	select {
	case s.preparing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// The token is handed back once the write is staged: others prepare
	// theirs while it commits.
	prepared := sync.OnceFunc(func() { <-s.preparing })
	defer prepared()
	for attempt := 1; ; attempt++ {
		s.mu.Lock()
		raw, rev, err := s.newest(ctx, key)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		obj, err := build(raw)
		if err != nil {
			return nil, err
		}
		typ, obj, err := s.prepareUpdate(ctx, k, obj, raw, rev)
		if err != nil || typ == "" {
			return obj, err
		}
		s.mu.Lock()
		if newest, exists := s.newestRevision(key); exists && newest == rev {
			st, err := s.stageUnlessDry(ctx, typ, obj)
			s.mu.Unlock()
			prepared()
			if err != nil {
				return nil, err
			}
			return s.commit(ctx, st)
		}
		s.mu.Unlock()
		if attempt == maxWriteAttempts {
			return nil, resource.Errorf(resource.ReasonConflict, "%s kept changing while this write was checked: read it again and retry", resource.Describe(key))
		}
	}
}

// Update replaces metadata and spec of a stored object.
func (s *DB) Update(ctx context.Context, obj resource.Object) (resource.Object, error) {
	k, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	if m := obj.GetMeta(); k.Namespaced && m.Namespace == "" {
		m.Namespace = resource.DefaultNamespace
	}
	// Each attempt works on its own copy of the caller's object.
	raw, err := encode(obj)
	if err != nil {
		return nil, err
	}
	return s.writeSpec(ctx, k, resource.KeyOf(obj), func([]byte) (resource.Object, error) { return decode(k, raw) })
}

// prepareUpdate checks obj as the next state of the stored object, whose
// JSON is stored at revision rev, and returns the write to commit, or no
// type and the stored object when nothing changes.
func (s *DB) prepareUpdate(ctx context.Context, k *resource.Kind, obj resource.Object, stored []byte, rev int64) (store.EventType, resource.Object, error) {
	nm := obj.GetMeta()
	if k.Namespaced && nm.Namespace == "" {
		nm.Namespace = resource.DefaultNamespace
	}
	key := resource.KeyOf(obj)
	if err := checkVersion(key, nm.ResourceVersion, formatRevision(rev)); err != nil {
		return "", nil, err
	}
	old, err := decode(k, stored)
	if err != nil {
		return "", nil, err
	}
	if err := resource.DefaultAndValidate(k, obj, old); err != nil {
		return "", nil, err
	}
	om := old.GetMeta()
	nm.UID, nm.CreationTimestamp, nm.DeletionTimestamp = om.UID, om.CreationTimestamp, om.DeletionTimestamp
	nm.Generation, nm.ResourceVersion = om.Generation, om.ResourceVersion
	if k.HasStatus {
		status, err := field(stored, "status")
		if err != nil {
			return "", nil, err
		}
		if obj, err = withField(k, obj, "status", status); err != nil {
			return "", nil, err
		}
		nm = obj.GetMeta()
	}
	raw, err := encode(obj)
	if err != nil {
		return "", nil, err
	}
	specChanged, err := fieldChanged(stored, raw, k.SpecField)
	if err != nil {
		return "", nil, err
	}
	if om.Terminating() {
		if specChanged {
			return "", nil, resource.Errorf(resource.ReasonForbidden,
				"%s is being deleted: its %s can no longer change", resource.Describe(key), k.SpecField)
		}
		for _, f := range nm.Finalizers {
			if !om.HasFinalizer(f) {
				return "", nil, resource.Errorf(resource.ReasonForbidden,
					"cannot add finalizer %q: %s is being deleted", f, resource.Describe(key))
			}
		}
		if len(nm.Finalizers) == 0 {
			return store.Deleted, obj, nil
		}
	}
	if bytes.Equal(raw, stored) {
		return "", old, nil
	}
	if err := s.admitWrite(ctx, obj, old); err != nil {
		return "", nil, err
	}
	if specChanged {
		nm.Generation++
	}
	return store.Modified, obj, nil
}

// stageUnlessDry stages obj (see stage), or, for a dry run
// (store.WithDryRun), returns it as it would be stored with nothing staged.
// The caller holds s.mu.
func (s *DB) stageUnlessDry(ctx context.Context, typ store.EventType, obj resource.Object) (staged, error) {
	if store.IsDryRun(ctx) {
		return staged{obj: obj}, nil
	}
	return s.stage(typ, obj)
}

func (s *DB) admitWrite(ctx context.Context, obj, old resource.Object) error {
	if s.admit == nil {
		return nil
	}
	return s.admit(ctx, s, obj, old)
}

// UpdateStatus replaces the status of a stored object.
func (s *DB) UpdateStatus(ctx context.Context, obj resource.Object) (resource.Object, error) {
	k, err := kindOf(obj)
	if err != nil {
		return nil, err
	}
	return s.write(ctx, func() (staged, error) { return s.updateStatus(ctx, k, obj) })
}

// updateStatus stages obj's status as the stored object's. The caller
// holds s.mu.
func (s *DB) updateStatus(ctx context.Context, k *resource.Kind, obj resource.Object) (staged, error) {
	if !k.HasStatus {
		return staged{}, resource.Errorf(resource.ReasonBadRequest, "%s objects have no status", k.Singular())
	}
	nm := obj.GetMeta()
	if k.Namespaced && nm.Namespace == "" {
		nm.Namespace = resource.DefaultNamespace
	}
	key := resource.KeyOf(obj)
	stored, old, err := s.current(ctx, k, key, nm.ResourceVersion)
	if err != nil {
		return staged{}, err
	}
	raw, err := encode(obj)
	if err != nil {
		return staged{}, err
	}
	status, err := field(raw, "status")
	if err != nil {
		return staged{}, err
	}
	if err := resource.ValidateStatus(key, status); err != nil {
		return staged{}, err
	}
	updated, err := withField(k, old, "status", status)
	if err != nil {
		return staged{}, err
	}
	if raw, err = encode(updated); err != nil {
		return staged{}, err
	}
	if bytes.Equal(raw, stored) {
		return staged{obj: old}, nil
	}
	return s.stageUnlessDry(ctx, store.Modified, updated)
}

// Patch applies a JSON merge patch to a stored object's metadata and spec.
func (s *DB) Patch(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error) {
	k, merge, err := mergePatch(key, patch)
	if err != nil {
		return nil, err
	}
	if k.ValidatePatch != nil {
		if errs := k.ValidatePatch(patch); len(errs) > 0 {
			return nil, resource.Invalid(key, errs)
		}
	}
	return s.writeSpec(ctx, k, key, merge)
}

// PatchStatus applies a JSON merge patch to a stored object's status.
func (s *DB) PatchStatus(ctx context.Context, key resource.Key, patch []byte) (resource.Object, error) {
	k, merge, err := mergePatch(key, patch)
	if err != nil {
		return nil, err
	}
	return s.write(ctx, func() (staged, error) {
		raw, _, err := s.newest(ctx, key)
		if err != nil {
			return staged{}, err
		}
		obj, err := merge(raw)
		if err != nil {
			return staged{}, err
		}
		return s.updateStatus(ctx, k, obj)
	})
}

// mergePatch returns key's kind and the function that applies patch to a
// stored entry of it.
func mergePatch(key resource.Key, patch []byte) (*resource.Kind, func(stored []byte) (resource.Object, error), error) {
	k, err := lookupKind(key.Kind)
	if err != nil {
		return nil, nil, err
	}
	merge := func(stored []byte) (resource.Object, error) {
		merged, err := jsonpatch.MergePatch(stored, patch)
		if err != nil {
			return nil, resource.Errorf(resource.ReasonBadRequest, "the body is not a JSON merge patch (RFC 7386): %v", err)
		}
		obj, err := store.DecodeStrict(k, merged)
		if err != nil {
			return nil, err
		}
		if got := resource.KeyOf(obj); got != key {
			return nil, resource.Invalid(key, []resource.FieldError{{Field: "metadata", Message: "kind, name and namespace cannot change"}})
		}
		return obj, nil
	}
	return k, merge, nil
}

// Delete deletes an object, or marks it Terminating while it has finalizers.
func (s *DB) Delete(ctx context.Context, key resource.Key, opts store.DeleteOptions) (resource.Object, error) {
	k, err := lookupKind(key.Kind)
	if err != nil {
		return nil, err
	}
	return s.write(ctx, func() (staged, error) { return s.deleteLocked(ctx, k, key, opts) })
}

// deleteLocked stages the deletion of key, or the release of finalizers
// whose owners are gone. The caller holds s.mu.
func (s *DB) deleteLocked(ctx context.Context, k *resource.Kind, key resource.Key, opts store.DeleteOptions) (staged, error) {
	_, obj, err := s.current(ctx, k, key, opts.ResourceVersion)
	if err != nil {
		return staged{}, err
	}
	m := obj.GetMeta()
	released := false
	for _, f := range append([]string(nil), m.Finalizers...) {
		ownerKind, ok := resource.OwnerKindOf(f)
		if !ok {
			continue
		}
		ref, hasRef := m.OwnerOfKind(ownerKind)
		if hasRef && opts.Owner != nil && opts.Owner.UID == ref.UID {
			continue
		}
		if hasRef {
			exists, err := s.ownerExists(ctx, key.Namespace, ref)
			if err != nil {
				return staged{}, err
			}
			if exists {
				return staged{}, resource.Errorf(resource.ReasonForbidden,
					"cannot delete %s %s: owned by %s %s; delete the %s instead", k.Singular(), key.Name, ownerKind, ref.Name, ownerKind)
			}
		}
		// The owner is gone, so nothing would ever release this finalizer.
		m.RemoveFinalizer(f)
		released = true
	}
	switch {
	case len(m.Finalizers) == 0:
		return s.stageUnlessDry(ctx, store.Deleted, obj)
	case m.Terminating() && !released:
		return staged{obj: obj}, nil
	case !m.Terminating():
		deleted := now()
		m.DeletionTimestamp = &deleted
	}
	return s.stageUnlessDry(ctx, store.Modified, obj)
}

// current returns the stored JSON of key and a decoded copy of it,
// checking the resourceVersion precondition. The caller holds s.mu.
func (s *DB) current(ctx context.Context, k *resource.Kind, key resource.Key, wantVersion string) ([]byte, resource.Object, error) {
	raw, rev, err := s.newest(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	if err := checkVersion(key, wantVersion, formatRevision(rev)); err != nil {
		return nil, nil, err
	}
	obj, err := decode(k, raw)
	return raw, obj, err
}

// ownerExists reports whether the object ref names still exists with its
// UID, in namespace ns when its kind is namespaced. The caller holds s.mu.
func (s *DB) ownerExists(ctx context.Context, ns string, ref resource.OwnerReference) (bool, error) {
	k, ok := resource.KindOf(ref.Kind)
	if !ok {
		return false, nil
	}
	if !k.Namespaced {
		ns = ""
	}
	raw, _, err := s.newest(ctx, resource.Key{Kind: ref.Kind, Namespace: ns, Name: ref.Name})
	if resource.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var owner struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &owner); err != nil {
		return false, err
	}
	return owner.Metadata.UID == ref.UID, nil
}

func lookupKind(name string) (*resource.Kind, error) {
	k, ok := resource.KindOf(name)
	if !ok {
		return nil, resource.Errorf(resource.ReasonBadRequest, "unknown kind %q", name)
	}
	return k, nil
}

// fieldChanged reports whether a top-level field differs between two
// encodings; absent, null and {} count as the same empty value.
func fieldChanged(oldRaw, newRaw []byte, name string) (bool, error) {
	a, err := field(oldRaw, name)
	if err != nil {
		return false, err
	}
	b, err := field(newRaw, name)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(normalizeEmpty(a), normalizeEmpty(b)), nil
}

func normalizeEmpty(v json.RawMessage) json.RawMessage {
	switch string(v) {
	case "", "null", "{}":
		return nil
	}
	return v
}

// now is the time stamped on objects, in seconds, as Kubernetes does.
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }
