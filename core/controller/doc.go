// Package controller is the runtime every Paddock controller runs on: a
// rate-limited, deduplicating work queue per controller (client-go's
// workqueue), fed by store watches that enqueue an object's own key or its
// controller owner's; reconcile results that requeue after a delay; errors
// retried with backoff; and helpers for finalizers, owned children and
// status writes that re-read and retry on conflict.
//
// The reconcile loop survives panics: one is recovered, logged with the
// object's key and the stack, counted (Panics), and the key is retried
// with backoff. A terminal error (Terminal), one retrying cannot fix, is
// not retried but recorded in the object's status as a condition with a
// reason and a message, where it outlives the daemon; Failed reads it back.
// Work that outlives one reconcile runs in goroutines the controller owns
// (Go): they end with its run, and Run returns only after they have.
//
// An idle controller sleeps: watches block on the store, and the queue's
// timers fire only for work that is due.
package controller
