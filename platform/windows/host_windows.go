package windows

import (
	"context"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

// Host is this Windows host, as platform/host asks of it.
type Host struct{}

// Roots are the %LOCALAPPDATA% directories (Roots).
func (Host) Roots() (instance.Roots, error) { return Roots() }

// AppTarget is WSL2.
func (Host) AppTarget(context.Context) apptemplate.Target {
	return apptemplate.Target{VMType: apptemplate.WSL2}
}

// Check checks WSL, its kernel, the Windows build, virtualization and the
// free disk.
func (Host) Check(ctx context.Context, opts hostcheck.Options) hostcheck.Report {
	return hostcheck.Gather(ctx, opts)
}
