package windows

import (
	"context"
	"fmt"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// ServePipe serves the named pipe path (PipePath of the instance) until
// ctx ends, joining each connection to one that dial makes (BridgeDialer:
// a bridge into the App's WSL distribution): Docker on Windows speaks to
// named pipes. Only the user running it, and the system, may open the
// pipe.
func ServePipe(ctx context.Context, path string, dial func(context.Context) (net.Conn, error)) error {
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
	return Relay(ctx, l, dial)
}
