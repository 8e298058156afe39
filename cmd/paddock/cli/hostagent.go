package cli

import (
	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima/hostagent"
)

// newHostAgentCmd is `paddock hostagent NAME`, Lima's host agent for one VM,
// which the daemon starts in a process group of its own (see
// platform/lima/hostagent). Its flags are the ones Lima's instance.Start
// passes its host agent program.
func newHostAgentCmd(c *cli) *cobra.Command {
	var o hostagent.Options
	cmd := &cobra.Command{
		Use:    "hostagent NAME",
		Short:  "Run Lima's host agent for one VM (started by the daemon)",
		Hidden: true,
		Args:   exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			level, err := logging.ParseLevel(c.logLevel)
			if err != nil {
				return withCode(exitUsage, err)
			}
			o.Name = args[0]
			o.Level = level
			o.Stdout = c.stdout
			o.Stderr = c.stderr
			return hostagent.Run(cmd.Context(), o)
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
