package linux

import (
	"context"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

// Host is this Linux host, as platform/host asks of it.
type Host struct{}

// Roots are the XDG base directories (Roots).
func (Host) Roots() (instance.Roots, error) { return Roots() }

// AppTarget is QEMU, accelerated by KVM where it really runs a guest
// (platform/qemu decides when the VM starts).
func (Host) AppTarget(context.Context) apptemplate.Target {
	return apptemplate.Target{VMType: apptemplate.QEMU}
}

// Check checks QEMU, KVM, ssh and the free disk.
func (Host) Check(ctx context.Context, opts hostcheck.Options) hostcheck.Report {
	return hostcheck.Gather(ctx, opts)
}

// DockerEndpoint is the forwarded socket.
func (Host) DockerEndpoint(p instance.Paths) string { return apptemplate.Socket(p.ShortDir) }

// ServeDocker has nothing to serve: Lima forwards the socket.
func (Host) ServeDocker(context.Context, instance.Paths) error { return nil }
