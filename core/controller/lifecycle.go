package controller

import (
	"context"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Lifecycle is the reconcile of a kind whose controller keeps the cleanup
// finalizer on its objects, split by the stage of an object's life. Every
// pass opens the same way: an object that is gone needs nothing (Gone, if
// set, forgets what the controller kept of it); a terminating one is
// finalized; a live one without the cleanup finalizer gets it, and the
// write wakes the next pass; only then does Live run.
type Lifecycle[T resource.Object] struct {
	Store    store.Store
	Gone     func(key resource.Key)
	Finalize func(context.Context, T) (Result, error)
	Live     func(context.Context, T) (Result, error)
}

// Reconcile is a ReconcileFunc that runs the stage the object at key is in.
func (l Lifecycle[T]) Reconcile(ctx context.Context, key resource.Key) (Result, error) {
	obj, err := l.Store.Get(ctx, key)
	if resource.IsNotFound(err) {
		if l.Gone != nil {
			l.Gone(key)
		}
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	t := obj.(T)
	if t.GetMeta().Terminating() {
		return l.Finalize(ctx, t)
	}
	if !t.GetMeta().HasFinalizer(resource.FinalizerCleanup) {
		return Result{}, EnsureFinalizer(ctx, l.Store, key, resource.FinalizerCleanup)
	}
	return l.Live(ctx, t)
}
