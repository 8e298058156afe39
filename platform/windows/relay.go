package windows

import (
	"context"
	"net"
	"sync"

	"paddock.dev/paddock/platform/engineproxy"
)

// Relay accepts connections on l until ctx ends (then it closes l) and
// joins each to a connection that dial makes (engineproxy.Join: both
// ways, a side's end of writing passed on). It returns nil when ctx ended,
// else what ended the accepting. A failed dial closes the accepted
// connection: the client sees the engine is not there.
func Relay(ctx context.Context, l net.Listener, dial func(context.Context) (net.Conn, error)) error {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		conns.Go(func() {
			defer c.Close()
			target, err := dial(ctx)
			if err != nil {
				return
			}
			defer target.Close()
			engineproxy.Join(ctx, c, target)
		})
	}
}
