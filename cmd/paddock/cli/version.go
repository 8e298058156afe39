package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/buildinfo"
)

// versions is what 'paddock version -o json' prints: this binary's build
// and, when its daemon runs, the daemon's.
type versions struct {
	Client buildinfo.Info  `json:"client"`
	Daemon *buildinfo.Info `json:"daemon,omitempty"`
	// DaemonError says why there is no daemon's version.
	DaemonError string `json:"daemonError,omitempty"`
}

func newVersionCmd(c *cli) *cobra.Command {
	var output string
	var clientOnly bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary and of the instance's daemon",
		Long: `Print the version of this binary and of the instance's running daemon,
which may differ after an upgrade until the daemon restarts. It never
starts a daemon: with none running it says so and exits 1; --client prints
this binary's version alone.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("unknown output format %q: use text or json", output)
			}
			v := versions{Client: buildinfo.Get()}
			if !clientOnly {
				cl, err := c.RunningClient(cmd.Context())
				if err == nil {
					var info buildinfo.Info
					if info, err = cl.Version(cmd.Context()); err == nil {
						v.Daemon = &info
					}
				}
				if err != nil {
					v.DaemonError = err.Error()
				}
			}
			if output == "json" {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(v); err != nil {
					return err
				}
			} else {
				printVersion(c.stdout, "paddock", v.Client)
				switch {
				case v.Daemon != nil:
					printVersion(c.stdout, "daemon", *v.Daemon)
				case !clientOnly:
					fmt.Fprintln(c.stdout, "daemon not running")
				}
			}
			if v.DaemonError != "" {
				return withCode(exitError, fmt.Errorf("the daemon's version: %s", v.DaemonError))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&clientOnly, "client", false, "print this binary's version alone, without asking the daemon")
	return cmd
}

// printVersion writes one build's version on a line, named what.
func printVersion(w io.Writer, what string, info buildinfo.Info) {
	fmt.Fprintf(w, "%s %s (%s, %s", what, info.Version, info.Platform, info.GoVersion)
	if info.Lima != "" {
		fmt.Fprintf(w, ", lima %s", info.Lima)
	}
	fmt.Fprintln(w, ")")
}
