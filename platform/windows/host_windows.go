package windows

import (
	"context"
	"os/exec"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
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

// DockerEndpoint is the instance's named pipe.
func (Host) DockerEndpoint(p instance.Paths) string { return apptemplate.Pipe(p.Instance) }

// ServeDocker serves the instance's named pipe, each connection bridged
// into the App's WSL distribution by `wsl.exe --exec` (BridgeArgs): Docker
// on Windows speaks to named pipes, and Lima v1.2.2 forwards no socket of
// a WSL2 instance.
func (Host) ServeDocker(ctx context.Context, p instance.Paths) error {
	args := BridgeArgs(Distro(resource.AppVMName), DockerGuestSocket)
	return ServePipe(ctx, apptemplate.PipePath(p.Instance), BridgeDialer(func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.SysProcAttr = NoWindow()
		return cmd
	}))
}
