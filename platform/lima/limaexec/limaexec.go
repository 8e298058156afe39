package limaexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima"
)

// Run runs paddock-lima with args and returns its exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var levelName string
	root := &cobra.Command{
		Use:           "paddock-lima",
		Short:         "Run Lima's host agent and instance operations for the Paddock daemon",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&levelName, "log-level", envOr(logging.EnvLevel, "info"),
		"log level: trace, debug, info, warn, error (env "+logging.EnvLevel+")")
	level := func() (slog.Level, error) { return parseLevel(levelName) }
	root.AddCommand(newHostAgentCmd(level, stdout, stderr))
	root.AddCommand(instanceCmds(level, stdin, stdout, stderr)...)
	root.AddCommand(snapshotCmd(level, stdout, stderr))
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	var f *failure
	switch {
	case err == nil:
		return 0
	case errors.As(err, &f):
		return lima.ReportFailure(stdout, f.err)
	case errors.Is(err, errLogged):
		return lima.HelperExitFailed
	}
	fmt.Fprintln(stderr, "paddock-lima:", err)
	return 2
}

// failure is an instance command's error, which Run reports as a
// lima.HelperFailure; any other error is one of usage.
type failure struct{ err error }

func (f *failure) Error() string { return f.err.Error() }

// errLogged is the error of a command that logged its failure already.
var errLogged = errors.New("failed")

// parseLevel takes a level by name, as logging.ParseLevel does, or as
// slog.Level's text ("DEBUG-4"), which the driver passes.
func parseLevel(s string) (slog.Level, error) {
	l, err := logging.ParseLevel(s)
	if err == nil {
		return l, nil
	}
	if l.UnmarshalText([]byte(s)) == nil {
		return l, nil
	}
	return 0, err
}

// runInstanceCmd runs fn with Lima's log routed to stderr as JSON lines,
// and its error as a failure.
func runInstanceCmd(ctx context.Context, level func() (slog.Level, error), stderr io.Writer, fn func(context.Context) error) error {
	l, err := level()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(os.Getenv(lima.EnvLimaHome)) {
		return fmt.Errorf("%s is %q, not an absolute path: the daemon runs paddock-lima with its Lima home in the environment", lima.EnvLimaHome, os.Getenv(lima.EnvLimaHome))
	}
	lima.RouteLogrus(slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: l})))
	if err := fn(ctx); err != nil {
		return &failure{err: err}
	}
	return nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
