package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newServiceCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Manage the Paddock daemon as an OS service and find its files",
		Args:  noArgs,
		RunE:  showHelp,
	}
	cmd.AddCommand(newServicePathsCmd(c))
	cmd.AddCommand(serviceCommands(c)...)
	return cmd
}

func newServicePathsCmd(c *cli) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "paths [KEY]",
		Short: "Print the instance's directories, socket and files",
		Long: `Print the instance's directories, socket and files, so that scripts find
them without guessing. With KEY, print that one value alone.

Keys: instance, index, dir, short_dir, log_dir, log_file, socket,
lima_home, db, pid_file, lock_file, token, api_port.`,
		Example: `  curl --unix-socket "$(paddock service paths socket)" http://paddock/readyz
  eval "$(paddock service paths -o shell)"; echo "$PADDOCK_SOCKET"`,
		Args: rangeArgs(0, 1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			p, err := c.Paths()
			if err != nil || len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return p.Keys(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			values := p.Map()
			if len(args) == 1 {
				v, ok := values[args[0]]
				if !ok {
					return usageError("unknown key %q: use one of %s", args[0], strings.Join(p.Keys(), ", "))
				}
				fmt.Fprintln(c.stdout, v)
				return nil
			}
			switch output {
			case "json":
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(values)
			case "shell":
				for _, k := range p.Keys() {
					fmt.Fprintf(c.stdout, "export PADDOCK_%s=%s\n", strings.ToUpper(k), shellQuote(values[k]))
				}
				return nil
			case "table", "":
				w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				for _, k := range p.Keys() {
					fmt.Fprintf(w, "%s\t%s\n", k, values[k])
				}
				return w.Flush()
			}
			return usageError("unknown output format %q: use table, json or shell", output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or shell")
	return cmd
}

// shellQuote quotes s for POSIX shells.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
