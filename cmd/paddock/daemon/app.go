package daemon

import (
	"context"
	"log/slog"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/platform/dockercontext"
	"paddock.dev/paddock/platform/engine"
	"paddock.dev/paddock/platform/host"
	"paddock.dev/paddock/platform/image"
)

// appOptions gives the App's controller the instance's parts: this host's
// template (its VM type, platform/host) booting img, the engine reached
// through the instance's sockets, and the docker context named after the
// instance, pointing at this host's Docker endpoint.
func appOptions(ctx context.Context, p instance.Paths, img image.Source, log *slog.Logger, meters *metrics.Metrics) (app.Options, error) {
	cache, err := image.DownloadCache()
	if err != nil {
		return app.Options{}, err
	}
	fetcher := &image.Fetcher{Cache: cache}
	h := host.Current()
	return app.Options{
		Template: host.AppTemplate(ctx, h, p, fetcher.Boot(img)),
		Engine:   engine.Pinger{ShortDir: p.ShortDir},
		Context:  dockercontext.ForInstance(p, h.DockerEndpoint(p)),
		Logger:   log,
		Metrics:  meters,
	}, nil
}
