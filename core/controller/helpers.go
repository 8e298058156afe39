package controller

import (
	"context"
	"fmt"

	"k8s.io/client-go/util/retry"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Update re-reads the object at key, applies mutate to its metadata and
// spec, and writes it, retrying from the read when another writer won the
// race. mutate reports whether it changed anything; when it did not, nothing
// is written.
func Update[T resource.Object](ctx context.Context, st store.Store, key resource.Key, mutate func(T) (bool, error)) (T, error) {
	return write(ctx, st, key, mutate, st.Update)
}

// UpdateStatus is Update for the status: re-read, mutate, write through the
// status subresource, retry on conflict.
func UpdateStatus[T resource.Object](ctx context.Context, st store.Store, key resource.Key, mutate func(T) (bool, error)) (T, error) {
	return write(ctx, st, key, mutate, st.UpdateStatus)
}

func write[T resource.Object](ctx context.Context, st store.Store, key resource.Key, mutate func(T) (bool, error),
	put func(context.Context, resource.Object) (resource.Object, error)) (T, error) {
	var out T
	err := retry.OnError(retry.DefaultRetry, resource.IsConflict, func() error {
		obj, err := st.Get(ctx, key)
		if err != nil {
			return err
		}
		t, ok := obj.(T)
		if !ok {
			return fmt.Errorf("%s is a %T, not the expected type", key, obj)
		}
		changed, err := mutate(t)
		if err != nil || !changed {
			out = t
			return err
		}
		written, err := put(ctx, t)
		if err != nil {
			return err
		}
		out = written.(T)
		return nil
	})
	return out, err
}

// EnsureFinalizer adds finalizer f to the object at key.
func EnsureFinalizer(ctx context.Context, st store.Store, key resource.Key, f string) error {
	_, err := Update(ctx, st, key, func(obj resource.Object) (bool, error) {
		return obj.GetMeta().AddFinalizer(f), nil
	})
	return err
}

// RemoveFinalizer removes finalizer f from the object at key; an object
// that is already gone is fine.
func RemoveFinalizer(ctx context.Context, st store.Store, key resource.Key, f string) error {
	_, err := Update(ctx, st, key, func(obj resource.Object) (bool, error) {
		return obj.GetMeta().RemoveFinalizer(f), nil
	})
	if resource.IsNotFound(err) {
		return nil
	}
	return err
}

// Own makes child belong to owner before it is created: a controller
// reference, and the owned-by finalizer that refuses deleting the child
// directly.
func Own(child, owner resource.Object) {
	m := child.GetMeta()
	ref := resource.ControllerReference(owner)
	if _, ok := m.OwnerOfKind(ref.Kind); !ok {
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
	m.AddFinalizer(resource.OwnedByFinalizer(ref.Kind))
}

// ReleaseOwned removes owner's owned-by finalizer from the child at key. A
// parent calls it whenever its child is Terminating, whoever started the
// deletion, so that the two never wait on each other.
func ReleaseOwned(ctx context.Context, st store.Store, key resource.Key, owner *resource.Kind) error {
	return RemoveFinalizer(ctx, st, key, resource.OwnedByFinalizer(owner.Name))
}

// DeleteOwned deletes the child at key as its owner, past the owned-by
// guard. A child that is already gone is fine; the child's own finalizers
// still hold it until its controller has cleaned up.
func DeleteOwned(ctx context.Context, st store.Store, key resource.Key, owner resource.Object) error {
	ref := resource.ControllerReference(owner)
	_, err := st.Delete(ctx, key, store.DeleteOptions{Owner: &ref})
	if resource.IsNotFound(err) {
		return nil
	}
	return err
}
