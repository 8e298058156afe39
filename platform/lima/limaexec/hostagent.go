package limaexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/lima-vm/lima/pkg/driverutil"
	limahostagent "github.com/lima-vm/lima/pkg/hostagent"
	"github.com/lima-vm/lima/pkg/hostagent/api/server"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/atomicfile"
	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima"
)

// hostAgentOptions are the arguments of `paddock-lima hostagent`, the flags
// Lima's instance.Start passes its host agent program, so that paddock-lima
// can stand in for limactl.
type hostAgentOptions struct {
	Name       string // the instance
	PIDFile    string // --pidfile: written at start, removed at exit
	Socket     string // --socket: the host agent's API socket (required)
	GuestAgent string // --guestagent: lima-guestagent binary for the cidata disk
	// NerdctlArchive is --nerdctl-archive: the nerdctl archive for the
	// cidata disk, when the template installs containerd.
	NerdctlArchive string
	// RunGUI is --run-gui, which only the vz driver (macOS) asks for.
	RunGUI bool
	Stdout io.Writer // events, one JSON object a line
	Stderr io.Writer // log, one JSON object a line, as Lima's host agent writes it
	// Level is the log level; the host agent logs at debug at least, as
	// Lima's does, since its log is the record of a boot.
	Level slog.Level
}

// newHostAgentCmd is `paddock-lima hostagent NAME`, Lima's host agent for
// one VM, which the driver starts in a process group of its own.
func newHostAgentCmd(level func() (slog.Level, error), stdout, stderr io.Writer) *cobra.Command {
	var o hostAgentOptions
	cmd := &cobra.Command{
		Use:   "hostagent NAME",
		Short: "Run Lima's host agent for one VM (started by the daemon)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := level()
			if err != nil {
				return err
			}
			o.Name, o.Level, o.Stdout, o.Stderr = args[0], l, stdout, stderr
			// A failure ends the host agent's log, which the driver reads;
			// its standard output holds Lima's events only.
			if err := runHostAgent(cmd.Context(), o); err != nil {
				newLogger(stderr, o.Level).Error(err.Error())
				return errLogged
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.PIDFile, "pidfile", "p", "", "write the process id to this file")
	f.StringVar(&o.Socket, "socket", "", "path of the host agent's API socket")
	f.StringVar(&o.GuestAgent, "guestagent", "", "local path of lima-guestagent.OS-ARCH[.gz]")
	f.StringVar(&o.NerdctlArchive, "nerdctl-archive", "", "local path of nerdctl-full-VERSION-GOOS-GOARCH.tar.gz")
	f.BoolVar(&o.RunGUI, "run-gui", false, "run a GUI (not supported)")
	return cmd
}

// runHostAgent runs Lima's host agent for an instance under $LIMA_HOME in
// this process until it is interrupted (SIGINT or SIGTERM; on Windows a
// console control event) or the VM stops.
//
// The driver that starts it (platform/lima's Start) prepares its
// environment: LIMA_HOME, and on Linux the ssh shim first on PATH and, for
// a native-architecture guest, QEMU_SYSTEM_<ARCH> naming the QEMU wrapper.
// Lima reads those from the environment, so each host agent, a process of
// its own, gets them in its own environment and nothing here changes them.
// Beyond Lima's own host agent, Run works around Lima v1.2.2 losing the
// guest agent's socket forward on slow boots.
func runHostAgent(ctx context.Context, o hostAgentOptions) error {
	logger := newLogger(o.Stderr, min(o.Level, slog.LevelDebug))
	if o.Socket == "" {
		return errors.New("--socket is required")
	}
	if o.RunGUI {
		return errors.New("--run-gui is not supported: Paddock runs VMs without a GUI window")
	}
	if home := os.Getenv(lima.EnvLimaHome); !filepath.IsAbs(home) {
		return fmt.Errorf("%s is %q, not an absolute path: the daemon starts host agents with their Lima home in the environment", lima.EnvLimaHome, home)
	}
	if o.PIDFile != "" {
		if _, err := os.Stat(o.PIDFile); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pid file %s exists: is the instance running already?", o.PIDFile)
		}
		if err := atomicfile.WriteFile(o.PIDFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return err
		}
		defer os.Remove(o.PIDFile)
	}
	lima.RouteLogrus(logger)
	inst, err := limastore.Inspect(o.Name)
	if err != nil {
		return err
	}
	if inst.Config == nil {
		return fmt.Errorf("instance %s is broken: %w", o.Name, errors.Join(inst.Errors...))
	}

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	var opts []limahostagent.Opt
	if o.GuestAgent != "" {
		opts = append(opts, limahostagent.WithGuestAgentBinary(o.GuestAgent))
	}
	if o.NerdctlArchive != "" {
		opts = append(opts, limahostagent.WithNerdctlArchive(o.NerdctlArchive))
	}
	ha, err := limahostagent.New(o.Name, newSyncWriter(o.Stdout), signals, opts...)
	if err != nil {
		return err
	}
	stopAPI, err := serveAPI(ha, o.Socket, logger)
	if err != nil {
		return err
	}
	defer stopAPI()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if driverutil.CreateTargetDriverInstance(inst, 0).ForwardGuestAgent() {
		go watchGuestAgentForward(ctx, inst, logger)
	}
	return ha.Run(ctx)
}

// serveAPI serves Lima's host agent API (which Lima's store.Inspect asks
// for the SSH port) on socket, and returns a function that stops it.
func serveAPI(ha *limahostagent.HostAgent, socket string, logger *slog.Logger) (func(), error) {
	if err := os.RemoveAll(socket); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", socket)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	server.AddRoutes(mux, &server.Backend{Agent: ha})
	srv := &http.Server{Handler: mux}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("host agent API server stopped", "err", err)
		}
	}()
	return func() {
		if err := srv.Close(); err != nil {
			logger.Warn("closing the host agent API server", "err", err)
		}
		<-done
		if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
			logger.Warn("removing the host agent API socket", "err", err)
		}
	}, nil
}

// newLogger logs JSON lines that Lima's event watcher reads like
// logrus's: lower-case level names, including trace and fatal, "msg" and an
// RFC 3339 "time".
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(newSyncWriter(w), &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key != slog.LevelKey || len(groups) > 0 {
				return a
			}
			switch l := a.Value.Any().(slog.Level); {
			case l < slog.LevelDebug:
				a.Value = slog.StringValue("trace")
			case l < slog.LevelInfo:
				a.Value = slog.StringValue("debug")
			case l < slog.LevelWarn:
				a.Value = slog.StringValue("info")
			case l < slog.LevelError:
				a.Value = slog.StringValue("warning")
			case l < logging.LevelFatal:
				a.Value = slog.StringValue("error")
			default:
				a.Value = slog.StringValue("fatal")
			}
			return a
		},
	}))
}

// syncWriter serializes writes to w and, when w is a regular file, syncs
// each, so that a reader tailing the file sees each line at once and a
// crash loses none.
type syncWriter struct {
	mu   sync.Mutex
	w    io.Writer
	file *os.File // w, when it is a regular file
}

func newSyncWriter(w io.Writer) *syncWriter {
	s := &syncWriter{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			s.file = f
		}
	}
	return s
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.w.Write(p)
	if s.file != nil && err == nil {
		err = s.file.Sync()
	}
	return n, err
}
