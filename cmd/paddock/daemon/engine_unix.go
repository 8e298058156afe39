//go:build !windows

package daemon

import (
	"context"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/engineproxy"
)

// serveDocker serves the App's Docker socket, docker.sock in the short
// directory, through px until ctx ends, and removes it then.
func serveDocker(ctx context.Context, p instance.Paths, px *engineproxy.Proxy) error {
	return px.Serve(ctx, resource.EngineSocket(p.ShortDir, resource.EngineMoby))
}
