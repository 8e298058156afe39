package cli

import (
	"log/slog"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/engine"
	"paddock.dev/paddock/platform/linux/apptemplate"
)

// appOptions gives the App's controller the instance's parts: the Linux
// template (QEMU through Lima; the other hosts' templates arrive with
// their drivers) and the engine reached through the instance's sockets.
func appOptions(p instance.Paths, log *slog.Logger) app.Options {
	return app.Options{
		Template: apptemplate.Template{ShortDir: p.ShortDir},
		Engine:   engine.Pinger{ShortDir: p.ShortDir},
		Logger:   log,
	}
}
