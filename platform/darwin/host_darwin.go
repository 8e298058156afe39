package darwin

import (
	"context"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

// Host is this Mac, as platform/host asks of it.
type Host struct{}

// Roots are the Library directories (Roots).
func (Host) Roots() (instance.Roots, error) { return Roots() }

// AppTarget is the VM type the App runs on on this Mac (see the
// function AppTarget, which decides it from the Mac's facts).
func (Host) AppTarget(ctx context.Context) apptemplate.Target {
	return AppTarget(hostcheck.GatherDarwin(ctx, hostcheck.Options{}))
}

// Check checks the macOS version for VZ, Apple silicon and Rosetta, QEMU
// and the free disk.
func (Host) Check(ctx context.Context, opts hostcheck.Options) hostcheck.Report {
	return hostcheck.Gather(ctx, opts)
}

// DockerEndpoint is the forwarded socket.
func (Host) DockerEndpoint(p instance.Paths) string { return apptemplate.Socket(p.ShortDir) }

// ServeDocker has nothing to serve: Lima forwards the socket.
func (Host) ServeDocker(context.Context, instance.Paths) error { return nil }
