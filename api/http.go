package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"paddock.dev/paddock/core/resource"
)

// Bounds of the API's connections: a client that sends nothing, sends
// slowly, or never authenticates is dropped instead of holding a file
// descriptor and memory forever.
const (
	// readHeaderTimeout bounds reading a request's headers.
	readHeaderTimeout = 10 * time.Second
	// bodyReadTimeout bounds reading a request's body (2 MiB at most): a
	// late body answers 408.
	bodyReadTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection no request follows on.
	idleTimeout = 60 * time.Second
	// MaxUnixConns caps the Unix socket's concurrent connections.
	MaxUnixConns = 1024
	// MaxTCPConns caps the loopback TCP listener's concurrent connections;
	// more wait in the kernel's accept queue, costing the daemon nothing.
	MaxTCPConns = 256
)

// LimitListener caps l at n concurrent connections.
func LimitListener(l net.Listener, n int) net.Listener { return netutil.LimitListener(l, n) }

// HTTPServer returns the http.Server that serves handler, with the API's
// timeouts. Requests' contexts derive from base: cancel it to cut off what
// still runs after a shutdown's grace.
func (s *Server) HTTPServer(handler http.Handler, base context.Context) *http.Server {
	return &http.Server{
		Handler:           s.countRequests(bodyDeadline(handler)),
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
}

// drainQuiet is how long a shutdown's drain waits after the last request
// it answered, and drainMax how long it drains at most.
const (
	drainQuiet = 100 * time.Millisecond
	drainMax   = time.Second
)

// Shutdown stops hs in order: drain (every request answers with
// Connection: close, and those that come now 503 "shutting down", so that
// no client sends another on a connection the server is about to close);
// stop accepting and let running requests finish within grace; then end
// the watch streams (which never finish by themselves); then close what
// is left. It reports whether anything was cut off.
func (s *Server) Shutdown(hs *http.Server, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	s.draining.Store(true)
	deadline := time.Now().Add(drainMax)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		last := time.Unix(0, s.lastRequest.Load())
		if s.inflight.Load() <= s.streaming.Load() && time.Since(last) >= drainQuiet {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(ctx) }()
	for s.inflight.Load() > s.streaming.Load() && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	s.EndWatches()
	err := <-done
	if err != nil {
		hs.Close()
		return errors.New("requests still running after the shutdown grace were cut off")
	}
	return nil
}

// countRequests counts the requests being served, for Shutdown, and
// answers those that come while it drains.
func (s *Server) countRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		s.lastRequest.Store(time.Now().UnixNano())
		if s.draining.Load() {
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			writeProblem(w, newProblem(resource.ReasonUnavailable, "the daemon is shutting down: retry once it is back"))
			return
		}
		next.ServeHTTP(&closeWhenDraining{ResponseWriter: w, draining: &s.draining}, r)
	})
}

// closeWhenDraining adds Connection: close to an answer that starts while
// the server drains, so that its client opens no request on it again.
type closeWhenDraining struct {
	http.ResponseWriter
	draining *atomic.Bool
	wrote    bool
}

func (w *closeWhenDraining) WriteHeader(code int) {
	if !w.wrote && w.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *closeWhenDraining) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *closeWhenDraining) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bodyDeadline bounds reading a request's body and lifts the bound once
// the body is read: the connection's read deadline also bounds the
// server's watch for a client that hangs up, whose expiry would cancel a
// long request (a wait, a stream) that is not reading any more.
func bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
			// A copy: the server judges whether the connection can
			// serve another request by the original's body.
			wrapped := *r
			wrapped.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			r = &wrapped
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
