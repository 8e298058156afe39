//go:build !darwin || cgo

package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/tray"
	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/platform/dockercontext"
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
		Client:             cl,
		Paths:              p,
		Instance:           c.instance,
		Executable:         exe,
		SettingsExecutable: settingsExecutable(exe),
		DockerContext:      dockercontext.NameFor(p.Instance),
		StartDaemon: func(ctx context.Context) error {
			return c.startDaemonFor(ctx, cmd, cl)
		},
		Log: log,
	})
}

// settingsExecutable is the program the tray runs for its settings window:
// exe itself when it has the window, else the paddock-settings that the
// packages install beside the static paddock (in ../lib/paddock from it) or
// that sits beside it, else exe, which then says how to get the window.
func settingsExecutable(exe string) string {
	if settingsWindowBuiltIn {
		return exe
	}
	name := "paddock-settings"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	dir := filepath.Dir(exe)
	for _, candidate := range []string{filepath.Join(dir, name), filepath.Join(dir, "..", "lib", "paddock", name)} {
		if isProgram(candidate) {
			return filepath.Clean(candidate)
		}
	}
	return exe
}

// isProgram reports whether path is a regular file this user may run
// (on Windows, any regular file: it has no mode bits for that).
func isProgram(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || info.Mode().Perm()&0o111 != 0
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
