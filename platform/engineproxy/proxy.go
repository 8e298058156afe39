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
	"sync"
	"time"

	"paddock.dev/paddock/core/resource"
)

// NotRunning is what a client is told, by default, when the engine does
// not answer and nothing wakes it.
const NotRunning = "the App is not running: 'paddock start' starts it"

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

	once sync.Once
	rp   *httputil.ReverseProxy
	act  activity
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

func (p *Proxy) init() {
	p.once.Do(func() {
		w := newWaker(p.Engine, p.Wake, p.logger(), "a Docker client")
		transport := &http.Transport{
			DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return w.dial(ctx, nil) },
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
// (streams, attached and upgraded connections among them). A socket
// removed or replaced meanwhile is made again within seconds.
func (p *Proxy) Serve(ctx context.Context, socket string) error {
	base, cutOff := context.WithCancel(context.Background())
	defer cutOff()
	srv := &http.Server{
		Handler:           p.Handler(),
		ReadHeaderTimeout: time.Minute,
		ErrorLog:          slog.NewLogLogger(p.logger().Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	return serveSocket(ctx, socket, cuttingServer{srv, cutOff}, &p.act, p.logger(), "Docker")
}

// cuttingServer is an http.Server whose Shutdown also ends the upgraded
// connections (attach, exec), which the server does not track, by
// cancelling their base context.
type cuttingServer struct {
	*http.Server
	cutOff context.CancelFunc
}

func (s cuttingServer) Shutdown(ctx context.Context) error {
	err := s.Server.Shutdown(ctx)
	s.cutOff()
	return err
}
