package host

import (
	"context"
	"os"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

// Host is what Paddock asks of the operating system it runs on.
type Host interface {
	// Roots are the OS's base directories for Paddock.
	Roots() (instance.Roots, error)
	// AppTarget is the VM type the App runs on here, and what it offers.
	AppTarget(ctx context.Context) apptemplate.Target
	// Check says what this host lacks to run the App.
	Check(ctx context.Context, opts hostcheck.Options) hostcheck.Report
	// DockerEndpoint is where the host's docker CLI reaches the App's
	// Docker: the forwarded socket in the short directory, or on Windows
	// the instance's named pipe (apptemplate.Pipe).
	DockerEndpoint(p instance.Paths) string
	// ServeDocker serves DockerEndpoint until ctx ends where something
	// must (on Windows the pipe, relayed to the forwarded socket), and
	// returns nil at once elsewhere.
	ServeDocker(ctx context.Context, p instance.Paths) error
}

// AppTemplate is the App's template of the instance at p on h, booting
// the image that image returns at each render (platform/image's
// Fetcher.Boot: the choice among an override, a built image and the
// published one is the caller's). The guest user takes this process's
// user id (apptemplate.Input.UID).
func AppTemplate(ctx context.Context, h Host, p instance.Paths, image func() (apptemplate.Image, error)) app.Template {
	return apptemplate.Template{Instance: p.Instance, ShortDir: p.ShortDir, Target: h.AppTarget(ctx), UID: os.Getuid(), Image: image}
}
