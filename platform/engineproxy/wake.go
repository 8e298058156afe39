package engineproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
)

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

// waker reaches the engine through its socket and, when it does not
// answer, wakes it: one wake at a time, and a dial that waited for
// another's wake tries first.
type waker struct {
	engine string
	// wake is the proxy's Wake; nil wakes nothing.
	wake   func(ctx context.Context) error
	waking chan struct{} // holds a token while a wake runs
	log    *slog.Logger
	// client names the clients in the log ("a Docker client").
	client string
}

func newWaker(engine string, wake func(context.Context) error, log *slog.Logger, client string) *waker {
	return &waker{engine: engine, wake: wake, waking: make(chan struct{}, 1), log: log, client: client}
}

// dial reaches the engine, waking it when it does not answer; its error
// is an *engineDown. waiting, when set, is called once the engine did not
// answer, before the dial waits for a wake.
func (w *waker) dial(ctx context.Context, waiting func()) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", w.engine)
	if err == nil || w.wake == nil || ctx.Err() != nil {
		if err != nil {
			return nil, &engineDown{dial: err}
		}
		return c, nil
	}
	if waiting != nil {
		waiting()
	}
	select {
	case w.waking <- struct{}{}:
	case <-ctx.Done():
		return nil, &engineDown{dial: err, wake: ctx.Err()}
	}
	defer func() { <-w.waking }()
	if c, err := d.DialContext(ctx, "unix", w.engine); err == nil {
		return c, nil
	}
	w.log.Info(w.client+" wakes the App", "engine", w.engine, "cause", err)
	if werr := w.wake(ctx); werr != nil {
		return nil, &engineDown{dial: err, wake: werr}
	}
	c, err = d.DialContext(ctx, "unix", w.engine)
	if err != nil {
		return nil, &engineDown{dial: err, wake: errors.New("the engine still does not answer")}
	}
	return c, nil
}
