package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/buildinfo"
)

func newVersionCmd(c *cli) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := buildinfo.Get()
			switch output {
			case "json":
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			case "", "text":
				fmt.Fprintf(c.stdout, "paddock %s (%s, %s", info.Version, info.Platform, info.GoVersion)
				if info.Lima != "" {
					fmt.Fprintf(c.stdout, ", lima %s", info.Lima)
				}
				fmt.Fprintln(c.stdout, ")")
				return nil
			}
			return usageError("unknown output format %q: use text or json", output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}
