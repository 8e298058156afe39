package engineproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
)

// Join copies a to b and b to a until both directions end, or ctx does,
// which closes both. A side that ends its writing ends the other side's
// too (a half close where the connection has one that works: a Unix
// socket; a byte-mode pipe has none, and is closed), so that a request
// and its answer both get through. Stream relays containerd's socket
// with it, and platform/windows Docker's named pipe.
func Join(ctx context.Context, a, b net.Conn) {
	stop := context.AfterFunc(ctx, func() { a.Close(); b.Close() })
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(b, a) })
	wg.Go(func() { copyHalf(a, b) })
	wg.Wait()
}

// copyHalf copies src to dst, then ends dst's writing: by a half close
// where dst has one that works, else by closing it.
func copyHalf(dst, src net.Conn) {
	if _, err := io.Copy(dst, src); err == nil && closeWrite(dst) == nil {
		return
	}
	dst.Close()
}

// closeWrite ends c's output, keeping its input open.
func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
