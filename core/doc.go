// Package core is Paddock's service core: the resource model, the store and
// the controllers that reconcile desired state. It has no HTTP, no GUI and no
// operating-system specifics; it reaches the host only through the small
// interfaces that the platform packages implement.
package core
