package windows

import (
	"context"
	"fmt"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// ServePipe serves the named pipe path (PipePath of the instance) until
// ctx ends, relaying each connection to the Unix socket socket, where the
// instance's VM forwards the engine's socket: Docker on Windows speaks
// to named pipes. Only the user running it, and the system, may open the
// pipe.
func ServePipe(ctx context.Context, path, socket string) error {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	l, err := winio.ListenPipe(path, &winio.PipeConfig{
		SecurityDescriptor: fmt.Sprintf("D:P(A;;GA;;;SY)(A;;GA;;;%s)", user.User.Sid),
	})
	if err != nil {
		return fmt.Errorf("listen on %s: %w", path, err)
	}
	return Relay(ctx, l, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	})
}
