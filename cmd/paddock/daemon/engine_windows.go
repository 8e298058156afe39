package daemon

import (
	"context"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/engineproxy"
	"paddock.dev/paddock/platform/host"
)

// serveDocker serves the instance's named pipe, relayed into the App's
// WSL distribution (platform/windows); px is not used there yet.
func serveDocker(ctx context.Context, p instance.Paths, _ *engineproxy.Proxy) error {
	return host.Current().ServeDocker(ctx, p)
}

// suspendWhenIdle leaves the App never suspended: the named pipe's relay
// neither counts Docker's clients nor wakes the App.
func suspendWhenIdle(*app.Options, instance.Paths, *engineproxy.Proxy, *engineproxy.Stream) {}
