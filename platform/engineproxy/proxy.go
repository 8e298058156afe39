package engineproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/unixsock"
)

// NotRunning is what a client is told, by default, when the engine does
// not answer and nothing wakes it.
const NotRunning = "the App is not running: 'paddock start' starts it"

// shutdownGrace bounds how long requests still running at the end of
// Serve (a build, a load) may finish before every connection is cut.
const shutdownGrace = 2 * time.Second

// Proxy serves Docker's API in front of the engine's socket.
type Proxy struct {
	// Engine is the path of the socket that reaches the engine: Lima's
	// forward of the guest's.
	Engine string
	// Shared returns the host folders the App's VM shares (as the App's
	// spec.mounts, the default already applied). Nil, or an error, checks
	// no bind mount.
	Shared func(ctx context.Context) ([]resource.AppMount, error)
	// Wake, when set, is called when the engine does not answer, before
	// the proxy dials it once more; it returns when the engine should
	// answer, or why it will not. One runs at a time.
	Wake func(ctx context.Context) error
	// NotRunning, when set, says why the engine does not answer, for
	// the client's error; NotRunning (the constant) when nil.
	NotRunning func(ctx context.Context) string
	// Logger takes the proxy's own log; slog.Default() when nil.
	Logger *slog.Logger

	once   sync.Once
	rp     *httputil.ReverseProxy
	waking chan struct{} // holds a token while a Wake runs
	act    activity
}

// engineDown is a dial that failed and, if a wake was tried, why that
// failed too.
type engineDown struct {
	dial, wake error
}

func (e *engineDown) Error() string {
	if e.wake != nil {
		return fmt.Sprintf("the engine does not answer (%v) and could not be woken: %v", e.dial, e.wake)
	}
	return fmt.Sprintf("the engine does not answer: %v", e.dial)
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

func (p *Proxy) init() {
	p.once.Do(func() {
		p.waking = make(chan struct{}, 1)
		transport := &http.Transport{
			DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx) },
			MaxIdleConns:        64,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
			// The engine's answers pass as they are: a compressed
			// one stays compressed, none is asked for.
			DisableCompression: true,
		}
		p.rp = &httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				r.Out.URL.Scheme = "http"
				r.Out.URL.Host = "docker"
				r.Out.Host = r.In.Host
			},
			Transport: transport,
			// Every write reaches the client at once: logs -f,
			// events and a build's progress are streams.
			FlushInterval: -1,
			BufferPool:    bufferPool{},
			ErrorLog:      slog.NewLogLogger(p.logger().Handler(), slog.LevelDebug),
			ErrorHandler:  p.proxyError,
		}
	})
}

// dial reaches the engine; when it does not answer, it wakes it (one
// Wake at a time; a dial that waited for another's Wake tries first) and
// dials again.
func (p *Proxy) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", p.Engine)
	if err == nil || p.Wake == nil || ctx.Err() != nil {
		if err != nil {
			return nil, &engineDown{dial: err}
		}
		return c, nil
	}
	select {
	case p.waking <- struct{}{}:
	case <-ctx.Done():
		return nil, &engineDown{dial: err, wake: ctx.Err()}
	}
	defer func() { <-p.waking }()
	if c, err := d.DialContext(ctx, "unix", p.Engine); err == nil {
		return c, nil
	}
	p.logger().Info("a Docker client wakes the App", "engine", p.Engine, "cause", err)
	if werr := p.Wake(ctx); werr != nil {
		return nil, &engineDown{dial: err, wake: werr}
	}
	c, err = d.DialContext(ctx, "unix", p.Engine)
	if err != nil {
		return nil, &engineDown{dial: err, wake: errors.New("the engine still does not answer")}
	}
	return c, nil
}

// proxyError answers a request the engine did not: 503 when it could not
// be reached (the App is not running), 502 when it was reached but did not
// answer; nothing when the client went away.
func (p *Proxy) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return
	}
	var down *engineDown
	if errors.As(err, &down) {
		msg := NotRunning
		if p.NotRunning != nil {
			msg = p.NotRunning(r.Context())
		}
		if down.wake != nil {
			msg = fmt.Sprintf("the App could not be woken: %v", down.wake)
		}
		p.logger().Debug("a Docker request found no engine", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusServiceUnavailable, msg)
		return
	}
	p.logger().Warn("the App's Docker did not answer a request", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusBadGateway, fmt.Sprintf("the App's Docker did not answer (it may be starting or stopping; 'paddock status' tells): %v", err))
}

// bufferPool lends the buffers a response's body is copied through.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

// writeError answers as dockerd does: {"message": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Message string `json:"message"`
	}{msg})
}

// Handler is the proxy as an http.Handler.
func (p *Proxy) Handler() http.Handler {
	p.init()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.act.touch()
		if isCreate(r) {
			if msg, refused := p.checkCreate(r); refused {
				p.logger().Info("a container create was refused: it binds a folder the App's VM does not share", "message", msg)
				writeError(w, http.StatusBadRequest, msg)
				return
			}
		}
		p.rp.ServeHTTP(w, r)
	})
}

// Serve listens on the Unix socket path socket (mode 0600; a stale file
// there is replaced) and serves until ctx ends; then it removes the socket,
// lets running requests finish for a moment, and cuts off the rest
// (streams, attached and upgraded connections among them).
func (p *Proxy) Serve(ctx context.Context, socket string) error {
	l, err := unixsock.Listen(socket)
	if err != nil {
		return err
	}
	base, cutOff := context.WithCancel(context.Background())
	defer cutOff()
	srv := &http.Server{
		Handler:           p.Handler(),
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          slog.NewLogLogger(p.logger().Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	served := make(chan error, 1)
	serve := func(h *held) {
		err := srv.Serve(&countingListener{Listener: h.l, act: &p.act})
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
			return fmt.Errorf("serve Docker on %s: %w", socket, err)
		case <-keep.C:
			if h2 := p.keepSocket(socket, h); h2 != nil {
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
		p.logger().Warn("cannot remove the Docker socket", "socket", socket, "err", err)
	}
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	_ = srv.Shutdown(grace)
	cutOff() // ends the upgraded connections, which Shutdown does not track
	srv.Close()
	return nil
}

// keepInterval is how often Serve checks that its socket is still there
// (a variable for the tests).
var keepInterval = 5 * time.Second

// keepSocket listens on socket again, and returns the new listener, when
// the file there is no longer h's: a host agent of a VM made by an older
// Paddock, which forwarded the engine's socket onto docker.sock itself,
// removes that path when its forward ends.
func (p *Proxy) keepSocket(socket string, h *held) *held {
	if fi, err := os.Stat(socket); err == nil && h.fi != nil && os.SameFile(fi, h.fi) {
		return nil
	}
	l, err := unixsock.Listen(socket)
	if err != nil {
		p.logger().Warn("the Docker socket is gone and cannot be made again", "socket", socket, "err", err)
		return nil
	}
	p.logger().Warn("the Docker socket was removed or replaced; listening on it again", "socket", socket)
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
