package engineproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"paddock.dev/paddock/platform/unixsock"
)

// shutdownGrace bounds how long requests still running at the end of
// Serve (a build, a load) may finish before every connection is cut.
const shutdownGrace = 2 * time.Second

// server is what serveSocket runs on its socket: the Docker proxy's
// http.Server, or a Stream's relay. Serve returns http.ErrServerClosed
// once Shutdown or Close was called.
type server interface {
	Serve(l net.Listener) error
	Shutdown(ctx context.Context) error
	Close() error
}

// serveSocket listens on the Unix socket path socket (mode 0600; a stale
// file there is replaced) and runs srv on it, counting its connections in
// act, until ctx ends; then it removes the socket, lets running requests
// finish for a moment, and cuts off the rest. what names the socket in
// the log and errors ("Docker").
func serveSocket(ctx context.Context, socket string, srv server, act *activity, log *slog.Logger, what string) error {
	l, err := unixsock.Listen(socket)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	serve := func(h *held) {
		err := srv.Serve(&countingListener{Listener: h.l, act: act})
		if !errors.Is(err, http.ErrServerClosed) && !h.retired.Load() {
			served <- err
		}
	}
	h := hold(l, socket)
	go serve(h)
	keep := time.NewTicker(keepInterval)
	defer keep.Stop()
	for done := false; !done; {
		select {
		case err = <-served:
			os.Remove(socket)
			srv.Close()
			return fmt.Errorf("serve %s on %s: %w", what, socket, err)
		case <-keep.C:
			if h2 := keepSocket(socket, h, log, what); h2 != nil {
				h = h2
				go serve(h)
			}
		case <-ctx.Done():
			done = true
		}
	}
	// Removed first: a client that connects from now on is refused at
	// once (no such file) instead of queued on a listener that closes.
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("cannot remove the "+what+" socket", "socket", socket, "err", err)
	}
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = srv.Shutdown(grace)
	srv.Close()
	return nil
}

// keepInterval is how often Serve checks that its socket is still there
// (a variable for the tests).
var keepInterval = 5 * time.Second

// keepSocket listens on socket again, and returns the new listener, when
// the file there is no longer h's: a host agent of a VM made by an older
// Paddock, which forwarded the engine's socket onto that path itself,
// removes it when its forward ends.
func keepSocket(socket string, h *held, log *slog.Logger, what string) *held {
	if fi, err := os.Stat(socket); err == nil && h.fi != nil && os.SameFile(fi, h.fi) {
		return nil
	}
	l, err := unixsock.Listen(socket)
	if err != nil {
		log.Warn("the "+what+" socket is gone and cannot be made again", "socket", socket, "err", err)
		return nil
	}
	log.Warn("the "+what+" socket was removed or replaced; listening on it again", "socket", socket)
	h.retired.Store(true)
	if ul, ok := h.l.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false) // the path is the new listener's now
	}
	h.l.Close()
	return hold(l, socket)
}

// held is a listener and the file it made.
type held struct {
	l       net.Listener
	fi      os.FileInfo
	retired atomic.Bool // closed by keepSocket, not by a failure
}

func hold(l net.Listener, socket string) *held {
	fi, _ := os.Stat(socket)
	return &held{l: l, fi: fi}
}
