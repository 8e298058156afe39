package daemon

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
	"syscall"
	"time"

	"paddock.dev/paddock/platform/unixsock"

	"github.com/gofrs/flock"

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
)

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 5 * time.Second

// vmStopBound bounds ending every VM at shutdown (saving or stopping each),
// all at once; it stays well inside the service managers' stop timeouts
// (120 s).
const vmStopBound = 60 * time.Second

// EnvDatabase names the database the daemon keeps its objects in.
const EnvDatabase = "PADDOCK_DATABASE"

// Config is what one daemon serves: the instance, where it listens, the
// database it keeps its objects in, the App's guest image, and the log.
type Config struct {
	Paths    instance.Paths
	Listen   string // tcp://127.0.0.1:PORT to serve on loopback TCP too; empty: the Unix socket only
	Database string // a SQLite file path or postgres://...; empty: the instance's SQLite file
	Image    string // the App's guest image; empty: image.Find's choice
	Log      *slog.Logger
}

// dataDirSetting names what moves the instances' data directories.
func dataDirSetting() string {
	switch runtime.GOOS {
	case "windows":
		return "LOCALAPPDATA"
	case "darwin":
		return "HOME"
	}
	return "XDG_DATA_HOME"
}

// ConfigError is a Config the daemon cannot serve with, such as an
// unknown database scheme, a missing image or a bad listen address: the
// caller's mistake, not the host's.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Run serves until ctx is done, then shuts down in order: stop taking
// requests and end the watches, stop the controllers, stop every VM
// gracefully and in parallel, close the store, remove the socket and pid
// file, release the lock.
func Run(ctx context.Context, cfg Config) (err error) {
	start := time.Now()
	p, log := cfg.Paths, cfg.Log
	defer func() {
		if errors.Is(err, syscall.EROFS) {
			err = fmt.Errorf("%w: the daemon writes its data directory %s and its database; start it with a writable data directory (%s moves it), "+
				"or keep the database elsewhere with --database (or %s)", err, p.Dir, dataDirSetting(), EnvDatabase)
		}
	}()
	if err := p.MkdirAll(); err != nil {
		return err
	}
	database := cfg.Database
	if database == "" {
		database = p.DB
	}
	dialector, err := gormstore.Dialector(database)
	if err != nil {
		return &ConfigError{err}
	}
	appImage, err := image.Find(cfg.Image, runtime.GOARCH)
	if err != nil {
		return &ConfigError{err}
	}
	var tcpAddr string
	if cfg.Listen != "" {
		addr, err := api.ParseListen(cfg.Listen, p.APIPort)
		if err != nil {
			return &ConfigError{err}
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
	docker := dockerProxy(p, st, log)
	containerd := containerdStream(p, log)
	suspendWhenIdle(&appOpts, p, docker, containerd)
	appOpts.Sessions = driver
	apps := app.New(st, appOpts)
	containerd.Wake = containerdWake(st, apps.Wake)
	docker.Wake = func(ctx context.Context) error {
		err := apps.Wake(ctx)
		if errors.Is(err, app.ErrNotToRun) {
			// Said as a request that finds no engine is told.
			return errors.New(docker.NotRunning(ctx))
		}
		return err
	}
	controllers.Go(func() { apps.Run(ctrlCtx) })
	controllers.Go(func() {
		if err := serveDocker(ctrlCtx, p, docker); err != nil {
			log.Error("the App's Docker endpoint cannot be served", "endpoint", host.Current().DockerEndpoint(p), "err", err)
		}
	})
	controllers.Go(func() {
		if err := serveContainerd(ctrlCtx, p, containerd); err != nil {
			log.Error("the App's containerd socket cannot be served", "err", err)
		}
	})

	hostCheck := func(ctx context.Context) resource.HostReport {
		return host.Current().Check(ctx, lima.CheckOptions(p, exe))
	}
	srv := api.New(api.Config{Store: st, Logger: log, VMAccess: driver, VMSnapshots: driver, Host: hostCheck, Metrics: meters})
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
		log.Error("ending VMs failed", "err", err)
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
	unlinkSockets(listeners, log)
	if err := srv.Shutdown(httpSrv, shutdownGrace); err != nil {
		log.Warn("shutdown", "err", err)
	}
	cutOff()
	wg.Wait()
	return runErr
}

// unlinkSockets removes the Unix sockets' paths, so that a client that
// connects from now on is refused at once (no such file) while those
// already queued on the listener are still accepted and answered during
// the drain. Closing a listener with connections queued on it would reset
// them instead.
func unlinkSockets(listeners []net.Listener, log *slog.Logger) {
	for _, l := range listeners {
		if a := l.Addr(); a.Network() == "unix" {
			if err := os.Remove(a.String()); err != nil && !errors.Is(err, os.ErrNotExist) {
				log.Warn("cannot remove the API socket", "socket", a.String(), "err", err)
			}
		}
	}
}

// listen opens the Unix socket and, when asked, the loopback TCP address.
func listen(p instance.Paths, tcpAddr string) ([]net.Listener, error) {
	unix, err := unixsock.Listen(p.Socket)
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
