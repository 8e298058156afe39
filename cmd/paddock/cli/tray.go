package cli

import (
	"context"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/tray"
	"paddock.dev/paddock/core/buildinfo"
)

func newTrayCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "tray",
		Short: "Show Paddock in the desktop's system tray",
		Long: `Show Paddock in the desktop's system tray: the App's state, Start, Stop,
Settings and the VMs, from a menu. The tray is a client of the daemon's API
like this CLI; quitting it leaves the VMs running. It follows the daemon as
it stops and starts, and offers to start it when it is not running.

The tray needs a paddock built with cgo (CGO_ENABLED=1).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			log, err := c.Logger()
			if err != nil {
				return err
			}
			exe, err := buildinfo.Executable()
			if err != nil {
				return err
			}
			if err := p.MkdirAll(); err != nil {
				return err
			}
			cl := client.NewUnix(p.Socket)
			return tray.Run(tray.Options{
				Client:     cl,
				Paths:      p,
				Instance:   c.instance,
				Executable: exe,
				StartDaemon: func(ctx context.Context) error {
					return c.startDaemonFor(ctx, cmd, cl)
				},
				Log: log,
			})
		},
	}
}

// startDaemonFor starts the instance's daemon as the installed service if
// there is one, else detached as any command would.
func (c *cli) startDaemonFor(ctx context.Context, cmd *cobra.Command, cl *client.Client) error {
	t := &serviceTarget{c: c}
	svc, err := t.open(cmd)
	if err == nil && installed(svc) {
		return svc.Start()
	}
	start, err := c.autostart()
	if err != nil {
		return err
	}
	return cl.Connect(ctx, start)
}
