//go:build cgo

package settings

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/icon"
	"paddock.dev/paddock/app/live"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/app/settings/link"
	"paddock.dev/paddock/core/resource"
)

// fyneID is the settings window's application ID with Fyne, which names
// where Fyne keeps the window's preferences.
const fyneID = "dev.paddock.tray"

// Options are what the window needs from the command that starts it.
type Options struct {
	Client *client.Client
	// Socket is the daemon's socket, whose return says the daemon is back.
	Socket string
	// Tray is the tray's side of the link: the window reads requests from
	// In (its end closes the window) and reports to Out.
	In  io.Reader
	Out io.Writer
	Log *slog.Logger
}

// Run shows the settings window until it is closed or In ends.
func Run(opts Options) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app, err := currentApp(ctx, opts.Client)
	if err != nil {
		return err
	}
	gui := fyneapp.NewWithID(fyneID)
	gui.SetIcon(fyne.NewStaticResource("paddock.png", icon.App()))
	var out sync.Mutex
	w := newWindow(gui, func(patch []byte) (*resource.App, error) {
		patched, err := opts.Client.PatchApp(ctx, patch)
		if err == nil {
			out.Lock()
			fmt.Fprintln(opts.Out, link.Applied(patched.Metadata.Generation))
			out.Unlock()
		}
		return patched, err
	})
	w.fill(app)
	w.win.SetMaster() // closing it quits
	w.win.Show()

	go func() {
		lines := bufio.NewScanner(opts.In)
		for lines.Scan() {
			if strings.TrimSpace(lines.Text()) == link.Raise {
				w.do(func() { w.win.Show(); w.win.RequestFocus() })
			}
		}
		w.do(gui.Quit)
	}()
	followed := make(chan error, 1)
	go func() {
		f := &live.Follower{Client: opts.Client, Socket: opts.Socket, Log: opts.Log,
			Changed: func(s menu.State) { w.do(func() { w.update(s) }) }}
		followed <- f.Run(ctx)
	}()
	gui.Run()
	cancel()
	if err := <-followed; !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
