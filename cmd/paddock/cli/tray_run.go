//go:build !darwin || cgo

package cli

import (
	"context"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/tray"
	"paddock.dev/paddock/core/buildinfo"
)

// runTray shows the tray until the user quits it. The tray needs no cgo
// (fyne.io/systray), except on macOS, where the menu bar is Objective-C.
func (c *cli) runTray(cmd *cobra.Command) error {
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
		Client:        cl,
		Paths:         p,
		Instance:      c.instance,
		Executable:    exe,
		DockerContext: dockerContextName(p),
		StartDaemon: func(ctx context.Context) error {
			return c.startDaemonFor(ctx, cmd, cl)
		},
		Log: log,
	})
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
