package engineproxy

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
)

// Stream serves a socket in front of the engine's as a byte stream, for
// an engine whose protocol the daemon need not read (containerd's gRPC):
// each client connection is relayed to a connection of its own to the
// engine, dialed when the client connects, waking the App first when the
// engine does not answer. A client the engine cannot be reached for is
// disconnected at once (gRPC calls it unavailable).
type Stream struct {
	// Engine is the path of the socket that reaches the engine: Lima's
	// forward of the guest's.
	Engine string
	// Wake, when set, is called when the engine does not answer, before
	// the stream dials it once more; it returns when the engine should
	// answer, or why it will not. One runs at a time.
	Wake func(ctx context.Context) error
	// Preface, when set, is sent to a client whose engine does not answer,
	// before the App is woken: what the engine says first on a connection,
	// for a client that gives up when the server says nothing for a while
	// (HTTP2Preface for gRPC, whose clients wait 10 s for it). The
	// engine's own first words follow once it answers.
	Preface []byte
	// Logger takes the stream's own log; slog.Default() when nil.
	Logger *slog.Logger

	act activity
}

// Activity says how many clients are connected and when one last
// connected or left.
func (s *Stream) Activity() Activity { return s.act.snapshot() }

func (s *Stream) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Serve listens on the Unix socket path socket (mode 0600; a stale file
// there is replaced) and relays its connections until ctx ends; then it
// removes the socket, lets the connections run for a moment, and cuts
// them. A socket removed or replaced meanwhile is made again within
// seconds.
func (s *Stream) Serve(ctx context.Context, socket string) error {
	base, cutOff := context.WithCancel(context.Background())
	r := &relay{w: newWaker(s.Engine, s.Wake, s.logger(), "a containerd client"), preface: s.Preface, base: base, cutOff: cutOff, listeners: map[net.Listener]bool{}}
	return serveSocket(ctx, socket, r, &s.act, s.logger(), "engine")
}

// HTTP2Preface is an HTTP/2 server's connection preface with no settings
// of its own (RFC 9113, 3.4): a SETTINGS frame, empty, which leaves every
// setting at its default until the engine's own SETTINGS frame, which
// follows, changes it. A gRPC client that got it counts the connection
// as ready; it acknowledges both frames, and a gRPC server takes an
// acknowledgement it did not wait for as nothing.
var HTTP2Preface = []byte{0, 0, 0, 0x4, 0, 0, 0, 0, 0}

// relay is a Stream's server: it relays every connection its listeners
// accept, until it is shut down.
type relay struct {
	w       *waker
	preface []byte
	base    context.Context // ends every relayed connection when cancelled
	cutOff  context.CancelFunc
	conns   sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]bool
}

func (r *relay) Serve(l net.Listener) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	r.listeners[l] = true
	r.conns.Add(1) // the accept loop, so that Shutdown waits for its last Add
	r.mu.Unlock()
	defer r.conns.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			r.mu.Lock()
			closed := r.closed
			delete(r.listeners, l)
			r.mu.Unlock()
			if closed {
				return http.ErrServerClosed
			}
			return err
		}
		r.conns.Add(1)
		go func() {
			defer r.conns.Done()
			r.pass(c)
		}()
	}
}

// pass relays client to a new connection to the engine until both sides
// ended, or the relay is cut off (Join).
func (r *relay) pass(client net.Conn) {
	defer client.Close()
	var greet func()
	if len(r.preface) > 0 {
		greet = func() { client.Write(r.preface) }
	}
	engine, err := r.w.dial(r.base, greet)
	if err != nil {
		r.w.log.Debug(r.w.client+" found no engine", "engine", r.w.engine, "err", err)
		return
	}
	defer engine.Close()
	Join(r.base, client, engine)
}

// close stops accepting connections.
func (r *relay) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for l := range r.listeners {
		l.Close()
	}
}

// Shutdown stops accepting and waits, until ctx ends, for the relayed
// connections to end by themselves.
func (r *relay) Shutdown(ctx context.Context) error {
	r.close()
	done := make(chan struct{})
	go func() {
		r.conns.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting and cuts every relayed connection.
func (r *relay) Close() error {
	r.close()
	r.cutOff()
	return nil
}
