// Package apptemplate renders the Lima template of the App's VM on Linux:
// the guest image that platform/linux/guestimage builds (its template.yaml
// fragment names the disk, kernel and initrd), the container engine started
// from the kernel command line, and the engine's socket forwarded into the
// instance's short directory. Nothing in it is host-wide: the sockets are
// the instance's, Lima chooses the SSH port.
package apptemplate
