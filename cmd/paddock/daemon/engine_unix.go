//go:build !windows

package daemon

import (
	"context"
	"time"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/engine"
	"paddock.dev/paddock/platform/engineproxy"
)

// serveDocker serves the App's Docker socket, docker.sock in the short
// directory, through px until ctx ends, and removes it then.
func serveDocker(ctx context.Context, p instance.Paths, px *engineproxy.Proxy) error {
	return px.Serve(ctx, resource.EngineSocket(p.ShortDir, resource.EngineMoby))
}

// suspendWhenIdle lets an App whose spec.suspendWhenIdle is set be
// suspended: px and cs, which serve Docker's and containerd's sockets,
// count their clients (and wake the App, through the App controller's
// Wake), and the VM's forward says whether a container runs.
func suspendWhenIdle(opts *app.Options, p instance.Paths, px *engineproxy.Proxy, cs *engineproxy.Stream) {
	opts.Clients = func() app.ClientActivity {
		d, c := px.Activity(), cs.Activity()
		return app.ClientActivity{Connections: d.Connections + c.Connections, Last: later(d.Last, c.Last)}
	}
	opts.Containers = engine.Pinger{ShortDir: p.ShortDir}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
