package windows

import (
	"context"
	"io"
	"net"
	"sync"
)

// Relay accepts connections on l until ctx ends (then it closes l) and
// joins each to a connection that dial makes, copying both ways; a side
// that ends its writing ends the other side's too (a half close where the
// connection has one), so that a request and its answer both get through.
// It returns nil when ctx ended, else what ended the accepting. A failed
// dial closes the accepted connection: the client sees the engine is not
// there.
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
			join(ctx, c, target)
		})
	}
}

// join copies a to b and b to a until both directions end or ctx does.
func join(ctx context.Context, a, b net.Conn) {
	stop := context.AfterFunc(ctx, func() { a.Close(); b.Close() })
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, a) })
	wg.Go(func() { copyHalf(a, b) })
	wg.Wait()
}

// copyHalf copies src to dst, then ends dst's writing: by a half close
// where dst has one that works (a Unix socket; not a byte-mode pipe), else
// by closing it.
func copyHalf(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok && err == nil && cw.CloseWrite() == nil {
		return
	}
	dst.Close()
}
