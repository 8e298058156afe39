// Package controller is the runtime every Paddock controller runs on: a
// rate-limited, deduplicating work queue per controller (client-go's
// workqueue), fed by store watches that enqueue an object's own key or its
// controller owner's; reconcile results that requeue after a delay; errors
// retried with backoff; and helpers for finalizers, owned children and
// status writes that re-read and retry on conflict.
//
// An idle controller sleeps: watches block on the store, and the queue's
// timers fire only for work that is due.
package controller
