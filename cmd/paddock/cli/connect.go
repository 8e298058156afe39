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
