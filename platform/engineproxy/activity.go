package engineproxy

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Activity is what the proxy's clients are doing, for an idle detector.
type Activity struct {
	// Connections is the number of client connections open now, an
	// attached or upgraded one (attach, exec, a build's session) among
	// them until it closes.
	Connections int
	// Last is when a client last connected, sent a request or closed a
	// connection; zero when none ever connected.
	Last time.Time
}

// Activity says how many clients are connected and when one was last
// active.
func (p *Proxy) Activity() Activity { return p.act.snapshot() }

type activity struct {
	open atomic.Int64
	last atomic.Int64 // Unix nanoseconds
}

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }

func (a *activity) snapshot() Activity {
	out := Activity{Connections: int(a.open.Load())}
	if last := a.last.Load(); last != 0 {
		out.Last = time.Unix(0, last)
	}
	return out
}

// countingListener counts the connections it accepted until each closes.
type countingListener struct {
	net.Listener
	act *activity
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.act.open.Add(1)
	l.act.touch()
	return &countedConn{Conn: c, act: l.act}, nil
}

// countedConn leaves the count when it first closes. It keeps the half
// close of the connection it wraps, which an upgraded stream passes on.
type countedConn struct {
	net.Conn
	act  *activity
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.act.open.Add(-1)
		c.act.touch()
	})
	return c.Conn.Close()
}

func (c *countedConn) CloseWrite() error { return closeWrite(c.Conn) }
