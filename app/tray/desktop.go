package tray

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/atotto/clipboard"
	"github.com/cli/browser"
	"github.com/gen2brain/beeep"

	"paddock.dev/paddock/app/icon"
)

// osDesktop reaches the desktop without a GUI toolkit: notifications over
// the desktop's notification service, the clipboard through the platform's
// clipboard tool (xclip, xsel or wl-copy on Linux), folders through the
// file manager the desktop opens them with.
type osDesktop struct{ log *slog.Logger }

func newDesktop(log *slog.Logger) osDesktop {
	beeep.AppName = "Paddock"
	return osDesktop{log: log}
}

func (d osDesktop) Notify(title, body string) {
	if err := beeep.Notify(title, body, icon.App()); err != nil {
		d.log.Warn("the desktop showed no notification", "title", title, "body", body, "err", err)
	}
}

func (osDesktop) CopyText(text string) error {
	if err := clipboard.WriteAll(text); err != nil {
		return fmt.Errorf("copy to the clipboard: %w", err)
	}
	return nil
}

func (osDesktop) OpenDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := browser.OpenFile(dir); err != nil {
		return fmt.Errorf("cannot open %s: %w", dir, err)
	}
	return nil
}
