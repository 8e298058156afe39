package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/spf13/cobra"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/atomicfile"
	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/platform/host"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/lima"
	"paddock.dev/paddock/platform/service"
)

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 5 * time.Second

// vmStopBound bounds stopping every VM at shutdown, all at once; it stays
// well inside the service managers' stop timeouts (120 s).
const vmStopBound = 60 * time.Second

// EnvDatabase names the database the daemon keeps its objects in.
const EnvDatabase = "PADDOCK_DATABASE"

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
				return runDaemon(ctx, daemonConfig{paths: p, listen: listen, database: database, image: img, log: log})
			})
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "also serve on loopback TCP, e.g. tcp://127.0.0.1:0 (needs the bearer token)")
	cmd.Flags().StringVar(&database, "database", envOr(EnvDatabase, ""), "database: a SQLite file path or postgres://... (default: the instance's db file; env "+EnvDatabase+")")
	cmd.Flags().StringVar(&img, "image", envOr(image.EnvImage, ""), "the App's guest image: a built image directory or a disk image file (default: the newest built, else Debian's cloud image; env "+image.EnvImage+")")
	return cmd
}

type daemonConfig struct {
	paths    instance.Paths
	listen   string
	database string // empty: the instance's SQLite file
	image    string // empty: image.Find's choice
	log      *slog.Logger
}

// runDaemon serves until ctx is done, then shuts down in order: stop taking
// requests and end the watches, stop the controllers, stop every VM
// gracefully and in parallel, close the store, remove the socket and pid
// file, release the lock.
func runDaemon(ctx context.Context, cfg daemonConfig) error {
	start := time.Now()
	p, log := cfg.paths, cfg.log
	if err := p.MkdirAll(); err != nil {
		return err
	}
	database := cfg.database
	if database == "" {
		database = p.DB
	}
	dialector, err := gormstore.Dialector(database)
	if err != nil {
		return usageError("%v", err)
	}
	appImage, err := image.Find(cfg.image, runtime.GOARCH)
	if err != nil {
		return usageError("%v", err)
	}
	var tcpAddr string
	if cfg.listen != "" {
		addr, err := api.ParseListen(cfg.listen, p.APIPort)
		if err != nil {
			return usageError("%v", err)
		}
		tcpAddr = addr
	}

	lock := flock.New(p.LockFile)
	locked, err := lock.TryLock()
	if err != nil {
		return fmt.Errorf("lock %s: %w", p.LockFile, err)
	}
	if !locked {
		return fmt.Errorf("another paddock daemon%s is already serving instance %q; stop it first (paddock service stop, or kill that pid)",
			pidNote(p.PIDFile), p.Instance)
	}
	defer lock.Unlock()
	if err := atomicfile.WriteFile(p.PIDFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	defer os.Remove(p.PIDFile)

	exe, err := buildinfo.Executable()
	if err != nil {
		return err
	}
	// The VM driver: Lima, with its home in the instance's short
	// directory, running host agents and Lima's heavier operations in
	// paddock-lima, found beside this binary or where the packages put
	// it; the accelerator comes from PADDOCK_QEMU_ACCEL (auto when unset).
	helper, err := lima.FindHelper(exe)
	if err != nil {
		log.Error("VMs cannot be created, started or deleted", "err", err)
	}
	driver := &lima.Driver{LimaHome: p.LimaHome, Executable: exe, Helper: helper, Logger: log}
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: dialector, Admit: vm.Admit(driver), Logger: log})
	if err != nil {
		return err
	}
	defer st.Close()
	meters := metrics.New()
	st.Instrument(meters)

	vms := vm.New(st, driver, vm.Options{Logger: log, Metrics: meters})
	vms.Instrument(meters)
	ctrlCtx, stopControllers := context.WithCancel(context.Background())
	defer stopControllers()
	var controllers sync.WaitGroup
	controllers.Go(func() { vms.Run(ctrlCtx) })
	appOpts, err := appOptions(ctx, p, appImage, log, meters)
	if err != nil {
		return err
	}
	apps := app.New(st, appOpts)
	controllers.Go(func() { apps.Run(ctrlCtx) })
	controllers.Go(func() {
		if err := host.Current().ServeDocker(ctrlCtx, p); err != nil {
			log.Error("the App's Docker endpoint cannot be served", "endpoint", host.Current().DockerEndpoint(p), "err", err)
		}
	})

	hostCheck := func(ctx context.Context) resource.HostReport {
		return host.Current().Check(ctx, hostCheckOptions(p, exe))
	}
	srv := api.New(api.Config{Store: st, Logger: log, VMAccess: driver, Host: hostCheck, Metrics: meters})
	handler := srv.Handler()
	if tcpAddr != "" {
		token, err := api.EnsureToken(p.Token)
		if err != nil {
			return err
		}
		handler = routeByListener(handler, api.TCPGuard(token, handler))
	}
	listeners, err := listen(p, tcpAddr)
	if err != nil {
		return err
	}
	defer os.Remove(p.Socket)

	log.Info("paddock daemon ready", "instance", p.Instance, "socket", p.Socket, "tcp", tcpAddr,
		"version", buildinfo.Version, "pid", os.Getpid(), "startup", time.Since(start).Round(time.Microsecond))
	runErr := serveAPI(ctx, srv, handler, listeners, log)
	stopControllers()
	controllers.Wait()
	if err := vms.Shutdown(context.Background(), vmStopBound); err != nil {
		log.Error("stopping VMs failed", "err", err)
		runErr = errors.Join(runErr, err)
	}
	if err := st.Close(); err != nil {
		log.Error("closing the store failed", "err", err)
		return err
	}
	log.Info("shutdown complete")
	return runErr
}

// serveAPI serves handler on listeners until ctx is done or a listener
// fails, then shuts the API down: stop accepting, let running requests
// finish within shutdownGrace, end the watch streams, cut off the rest.
func serveAPI(ctx context.Context, srv *api.Server, handler http.Handler, listeners []net.Listener, log *slog.Logger) error {
	base, cutOff := context.WithCancel(context.Background())
	defer cutOff()
	httpSrv := srv.HTTPServer(handler, base)
	var wg sync.WaitGroup
	serveErr := make(chan error, len(listeners))
	for _, l := range listeners {
		wg.Go(func() {
			if err := httpSrv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				serveErr <- fmt.Errorf("serve on %s: %w", l.Addr(), err)
			}
		})
	}
	var runErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "cause", context.Cause(ctx))
	case runErr = <-serveErr:
		log.Error("API server failed; shutting down", "err", runErr)
	}
	if err := srv.Shutdown(httpSrv, shutdownGrace); err != nil {
		log.Warn("shutdown", "err", err)
	}
	cutOff()
	wg.Wait()
	return runErr
}

// listen opens the Unix socket and, when asked, the loopback TCP address.
func listen(p instance.Paths, tcpAddr string) ([]net.Listener, error) {
	unix, err := api.ListenUnix(p.Socket)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", p.Socket, err)
	}
	unix = api.LimitListener(unix, api.MaxUnixConns)
	if tcpAddr == "" {
		return []net.Listener{unix}, nil
	}
	tcp, err := net.Listen("tcp", tcpAddr)
	if err != nil {
		unix.Close()
		return nil, fmt.Errorf("listen on %s: %w", tcpAddr, err)
	}
	return []net.Listener{unix, api.LimitListener(tcp, api.MaxTCPConns)}, nil
}

// routeByListener sends requests that came over TCP through the guard and
// those from the Unix socket, which the file mode already protects, direct.
func routeByListener(unix, tcp http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && addr.Network() == "tcp" {
			tcp.ServeHTTP(w, r)
			return
		}
		unix.ServeHTTP(w, r)
	})
}

// pidNote names the pid in the pid file, for messages.
func pidNote(pidFile string) string {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return ""
	}
	return " (pid " + strings.TrimSpace(string(data)) + ")"
}

// openServiceLog opens the log a daemon under a service manager that keeps
// no output writes itself (the file 'paddock service logs' reads).
func openServiceLog(p instance.Paths) (*os.File, error) {
	if err := os.MkdirAll(p.LogDir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(p.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}
