package cli

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/cmd/paddock/daemon"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/service"
)

func newServeCmd(c *cli) *cobra.Command {
	var listen, database, img string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon in the foreground",
		Long: `Run the daemon in the foreground: the store, the controllers and the REST
API on the instance's Unix socket (mode 0600). SIGINT or SIGTERM (on
Windows a console control event or the service manager's stop) shut it
down cleanly. One daemon serves an instance; a second one is refused.

--listen tcp://127.0.0.1:PORT also serves the API on loopback TCP, with a
bearer token from a 0600 file the daemon creates ('paddock service paths
token'). A port of 0 takes the instance's own port.

--database (or PADDOCK_DATABASE) keeps the objects elsewhere than the
instance's SQLite file: another file path, or postgres://USER:PASSWORD@HOST/DB
for PostgreSQL. One daemon only may use a database.

--image (or PADDOCK_APP_IMAGE) names the guest image the App boots, for a
machine without a network: a directory that
platform/linux/guestimage/build.sh printed, or a cloud disk image file
(.qcow2, .img, .raw; on Windows a root file system tarball, .tar.gz) whose
container engine is installed at its first boot. Without it, the App boots the newest image build.sh left in the
image cache, else the published Debian 12 cloud image, downloaded once
(checked against its pinned SHA-512) into ~/.cache/paddock/downloads. The
choice is made when the daemon starts.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			if service.OwnLog() {
				f, err := openServiceLog(p)
				if err != nil {
					return err
				}
				defer f.Close()
				c.stderr = f
			}
			log, err := c.Logger()
			if err != nil {
				return err
			}
			return service.Run(p.Instance, func(ctx context.Context) error {
				return daemonError(daemon.Run(ctx, daemon.Config{Paths: p, Listen: listen, Database: database, Image: img, Log: log}))
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "also serve on loopback TCP, e.g. tcp://127.0.0.1:0 (needs the bearer token)")
	cmd.Flags().StringVar(&database, "database", envOr(daemon.EnvDatabase, ""), "database: a SQLite file path or postgres://... (default: the instance's db file; env "+daemon.EnvDatabase+")")
	cmd.Flags().StringVar(&img, "image", envOr(image.EnvImage, ""), "the App's guest image: a built image directory or a disk image file (default: the newest built, else Debian's cloud image; env "+image.EnvImage+")")
	return cmd
}

// daemonError gives a configuration the daemon cannot serve with the
// usage exit code.
func daemonError(err error) error {
	var ce *daemon.ConfigError
	if errors.As(err, &ce) {
		return withCode(exitUsage, err)
	}
	return err
}

// openServiceLog opens the log a daemon under a service manager that keeps
// no output writes itself (the file 'paddock service logs' reads).
func openServiceLog(p instance.Paths) (*os.File, error) {
	if err := os.MkdirAll(p.LogDir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(p.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}
