package cli

import (
	"log/slog"
	"path/filepath"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/platform/dockercontext"
	"paddock.dev/paddock/platform/engine"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/linux/apptemplate"
)

// appOptions gives the App's controller the instance's parts: the Linux
// template (QEMU through Lima; the other hosts' templates arrive with
// their drivers), the engine reached through the instance's sockets, and
// the docker context named after the instance. The VM boots img.
func appOptions(p instance.Paths, img image.Source, log *slog.Logger, meters *metrics.Metrics) (app.Options, error) {
	tmpl, err := apptemplate.New(p.ShortDir, img)
	if err != nil {
		return app.Options{}, err
	}
	return app.Options{
		Template: tmpl,
		Engine:   engine.Pinger{ShortDir: p.ShortDir},
		Context: dockercontext.Context{
			Name:      dockerContextName(p),
			ShortDir:  p.ShortDir,
			StateFile: filepath.Join(p.Dir, "docker-context-replaced"),
		},
		Logger:  log,
		Metrics: meters,
	}, nil
}

// dockerContextName is the instance's docker context: paddock, or
// paddock-INSTANCE.
func dockerContextName(p instance.Paths) string {
	return dockercontext.NameFor(p.Instance, instance.Default)
}
