package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/buildinfo"
)

// EnvNoAutostart, when set to 1, stops commands from starting the daemon.
const EnvNoAutostart = "PADDOCK_NO_AUTOSTART"

// Client returns a client of the instance's daemon, starting the daemon in
// the background when none answers.
func (c *cli) Client(ctx context.Context) (*client.Client, error) {
	p, err := c.Paths()
	if err != nil {
		return nil, err
	}
	cl := client.NewUnix(p.Socket)
	if os.Getenv(EnvNoAutostart) == "1" {
		err := cl.Connect(ctx, nil)
		if errors.Is(err, client.ErrUnreachable) {
			return nil, fmt.Errorf("%w (%s=1, so it was not started; run 'paddock serve')", err, EnvNoAutostart)
		}
		return cl, err
	}
	if err := cl.Connect(ctx, nil); !errors.Is(err, client.ErrUnreachable) {
		return cl, err
	}
	// Never a second daemon beside a system service of the instance.
	if sys, err := c.systemServiceClient(ctx); sys != nil || err != nil {
		return sys, err
	}
	start, err := c.autostart()
	if err != nil {
		return nil, err
	}
	return cl, cl.Connect(ctx, start)
}

// noDaemonError is RunningClient's error when no daemon runs.
type noDaemonError struct{ instance, socket string }

func (e *noDaemonError) Error() string {
	return fmt.Sprintf("no paddock daemon runs for instance %s (nothing answers on %s), and this command does not start one: 'paddock start' starts it with the App, 'paddock serve' runs it alone",
		e.instance, e.socket)
}

func (e *noDaemonError) Unwrap() error { return client.ErrUnreachable }

// isNoDaemon reports whether err says that no daemon runs.
func isNoDaemon(err error) bool {
	var nd *noDaemonError
	return errors.As(err, &nd)
}

// RunningClient returns a client of the instance's daemon when one runs,
// and never starts one: read-only commands (status, get, list, version)
// report what is, and a daemon started only to answer them would stay
// behind. With none running the error says so and how to start one.
func (c *cli) RunningClient(ctx context.Context) (*client.Client, error) {
	p, err := c.Paths()
	if err != nil {
		return nil, err
	}
	cl := client.NewUnix(p.Socket)
	if err := cl.Connect(ctx, nil); !errors.Is(err, client.ErrUnreachable) {
		return cl, err
	}
	if sys, err := c.systemServiceClient(ctx); sys != nil || err != nil {
		return sys, err
	}
	return nil, &noDaemonError{instance: p.Instance, socket: p.Socket}
}

// autostart says how to start the instance's daemon in the background.
func (c *cli) autostart() (*client.Autostart, error) {
	p, err := c.Paths()
	if err != nil {
		return nil, err
	}
	if err := p.MkdirAll(); err != nil {
		return nil, err
	}
	exe, err := buildinfo.Executable()
	if err != nil {
		return nil, err
	}
	return &client.Autostart{
		Command: []string{exe, "serve", "--instance", c.instance, "--log-level", c.logLevel},
		LogPath: p.LogFile,
		PIDFile: p.PIDFile,
	}, nil
}
