// Package app is the App's controller: it makes the one App object real as
// a VM in the App's namespace, made from the App's template (rendered by
// the platform for this instance), sized and started as the App's spec
// says, with the container engine reachable from the host.
//
// The App owns its VM and its source templates (an owner reference and
// the owned-by-App finalizer); it writes only the VM's spec fields it owns,
// by merge patch; it mirrors the VM's Created and Running conditions,
// reports ContainerEngineReady from a call to the engine through its
// forwarded socket, and sums them up in Settled. Deleting the App deletes
// the VM, waits for the VM's own cleanup, then removes the App's templates.
// The VM's template copy is the VM's own: the App never touches it.
//
// An App whose spec.suspendWhenIdle is set is suspended once, for that
// long, no client was connected to the daemon's socket of its engine
// (Docker's or containerd's), no container ran, and no one was logged in
// to its VM on a terminal (asked last): the controller marks it
// (resource.AnnotationSuspended, in the store, so that a daemon that
// restarts keeps it suspended) and stops its VM, which saves its state,
// while the App's spec.running stays true; its Running condition says
// Suspended. Wake, which the daemon's engine sockets call when the engine
// does not answer, ends the suspension and returns once the engine
// answers again; so does a start, and any change of the App's spec.
package app
