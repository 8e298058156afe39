package cli

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

func newServiceLogsCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	var follow bool
	var lines int
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Print the service's log",
		Long: `Print the daemon's log as the service manager keeps it: the systemd journal
of the unit on Linux, the log file in the instance's log directory on macOS
and Windows. With -f, keep printing new lines until interrupted.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 0 {
				return usageError("--lines must be 0 (all) or more, got %d", lines)
			}
			svc, err := t.openWithLog(cmd)
			if err != nil {
				return err
			}
			st, err := svc.Status()
			if err != nil {
				return err
			}
			if !st.Installed() {
				return fmt.Errorf("%s service %s is not installed, so it has no log; the log of a daemon that a command started is in %s",
					svc.Scope(), svc.Name(), filepath.Join(instanceLogDir(c), autostartLogName))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return svc.Logs(ctx, c.stdout, lines, follow)
		},
	}
	t.addFlags(cmd)
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines until interrupted")
	cmd.Flags().IntVarP(&lines, "lines", "n", 200, "print the last N lines; 0 prints all")
	return cmd
}

// logFile is where the daemon's output goes for a service whose manager
// keeps no journal, for the paths of the account the service runs as.
func logFile(paths map[string]string) string {
	return filepath.Join(paths["log_dir"], logFileName)
}

// autostartLogName is the file in the instance's log directory that
// receives the output of a daemon that a command started.
const autostartLogName = "paddock.log"

// instanceLogDir is the instance's log directory, or words naming it when
// its paths cannot be resolved.
func instanceLogDir(c *cli) string {
	p, err := c.Paths()
	if err != nil {
		return "the instance's log directory"
	}
	return p.LogDir
}
