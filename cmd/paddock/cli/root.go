package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/host"
)

// cli holds what every command shares: the global flags, the resolved
// instance paths and the output streams.
type cli struct {
	instance string
	logLevel string
	stdout   io.Writer
	stderr   io.Writer

	paths *instance.Paths
}

// Paths resolves the selected instance's paths once.
func (c *cli) Paths() (instance.Paths, error) {
	if c.paths != nil {
		return *c.paths, nil
	}
	roots, err := host.Current().Roots()
	if err != nil {
		return instance.Paths{}, err
	}
	p, err := instance.Resolve(roots, c.instance)
	if err != nil {
		return instance.Paths{}, withCode(exitUsage, err)
	}
	c.paths = &p
	return p, nil
}

// Logger returns a logger on stderr at the selected level.
func (c *cli) Logger() (*slog.Logger, error) {
	level, err := logging.ParseLevel(c.logLevel)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return logging.New(c.stderr, level), nil
}

func Run(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	root := newRootCmd(c)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return exitCode(stderr, root.Execute())
}

func newRootCmd(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "paddock",
		Short: "Run Linux VMs and a container engine on this machine",
		Long: `Paddock runs Linux VMs through Lima and hands the host a working container
engine inside them. State what should be; the daemon makes it so.

Every command talks to the daemon of one instance over its REST API and
starts the daemon when it is not running.`,
		Args:              noArgs,
		RunE:              showHelp,
		PersistentPreRunE: func(*cobra.Command, []string) error { return c.checkGlobalFlags() },
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.PersistentFlags().StringVar(&c.instance, "instance", envOr(instance.EnvName, instance.Default),
		"instance to use (env "+instance.EnvName+")")
	root.PersistentFlags().StringVar(&c.logLevel, "log-level", envOr(logging.EnvLevel, "info"),
		"log level: trace, debug, info, warn, warning, error, fatal (env "+logging.EnvLevel+")")
	_ = root.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions(logging.Names, cobra.ShellCompDirectiveNoFileComp))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &codedError{code: exitUsage, err: errors.Join(err, errors.New("see '"+cmd.CommandPath()+" --help'"))}
	})

	root.AddCommand(
		newServeCmd(c),
		newGetCmd(c),
		newApplyCmd(c),
		newPatchCmd(c),
		newDeleteCmd(c),
		newWaitCmd(c),
		newVMCmd(c),
		newVersionCmd(c),
		newDoctorCmd(c),
		newServiceCmd(c),
		newTrayCmd(c),
		newListCmd(c),
		newShutdownCmd(c),
		newFactoryResetCmd(c),
	)
	root.AddCommand(appCommands(c)...)
	return root
}

// checkGlobalFlags refuses a log level or an instance name that no
// command could use, before any command runs (and so before a daemon is
// started with them).
func (c *cli) checkGlobalFlags() error {
	if _, err := logging.ParseLevel(c.logLevel); err != nil {
		return usageError("--log-level (or %s): %v", logging.EnvLevel, err)
	}
	if err := instance.ValidateName(c.instance); err != nil {
		return usageError("--instance (or %s): %v", instance.EnvName, err)
	}
	return nil
}

func envOr(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return fallback
}

// printErr writes a message for the person at the terminal.
func (c *cli) printErr(format string, args ...any) {
	fmt.Fprintf(c.stderr, format, args...)
}
