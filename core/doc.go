// Package core is Paddock's service core: the resource model (resource),
// the store (store; store/gormstore implements it with gorm, the only
// package here that imports gorm), the controller runtime (controller) and
// the controllers that reconcile desired state (vm, app), with the
// instance's paths (instance), logging, metrics and build information
// beside them.
// It has no HTTP, no GUI and no operating-system specifics, and imports no
// Lima. It reaches the host only through small interfaces declared where
// they are consumed and implemented under platform/: the VM driver's roles
// in vm/driver.go and vm/admission.go (platform/lima); the App's template,
// engine and host context in app/controller.go (platform/apptemplate
// through the platform seam platform/host, platform/engine,
// platform/dockercontext); and the per-user base directories,
// instance.Roots (platform/linux, darwin, windows, through platform/host).
// cmd/paddock/cli wires the two sides together.
package core
