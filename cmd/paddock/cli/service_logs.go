package cli

import (
	"fmt"
	"os"
	"os/signal"
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
					svc.Scope(), svc.Name(), mustLogFile(c))
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

// mustLogFile is the instance's log file, or a placeholder naming it.
func mustLogFile(c *cli) string {
	p, err := c.Paths()
	if err != nil {
		return "the instance's log file (paddock service paths log_file)"
	}
	return p.LogFile
}
