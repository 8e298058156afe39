package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/platform/host"
	"paddock.dev/paddock/platform/hostcheck"
	"paddock.dev/paddock/platform/lima"
)

func newDoctorCmd(c *cli) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what this host lacks to run the App, and how to fix it",
		Long: `Check this host for what the App needs: on Linux QEMU, qemu-img, KVM
(the probe the accelerator choice runs), the kvm group and ssh; on macOS the
version for VZ, Apple silicon and Rosetta, and QEMU; on Windows WSL and its
kernel, the Windows build and virtualization; everywhere paddock-lima and
Lima's guest agent, which Paddock runs VMs with (beside the paddock binary, or
where its packages put them), and the free disk of the instance's
directories. Each lack comes with the command that fixes it.

The checks run here, without the daemon (which answers the same report at
GET /api/v1alpha1/host). Exit code 0 when no check failed (warnings, such as
guests emulated without KVM, leave it 0), 1 otherwise.`,
		Example: `  paddock doctor
  paddock doctor -o json | jq '.checks[] | select(.status != "ok")'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "table" && output != "json" {
				return usageError("unknown output format %q: use table or json", output)
			}
			p, err := c.Paths()
			if err != nil {
				return err
			}
			exe, err := buildinfo.Executable()
			if err != nil {
				return err
			}
			r := host.Current().Check(cmd.Context(), lima.CheckOptions(p, exe))
			if output == "json" {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return err
				}
			} else if err := printHostReport(c, r); err != nil {
				return err
			}
			if !r.OK {
				return withCode(exitError, errors.New("this host cannot run the App until the failed checks are fixed"))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return cmd
}

func printHostReport(c *cli, r hostcheck.Report) error {
	w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, ch := range r.Checks {
		fmt.Fprintf(w, "%s\t%s\t%s\n", ch.Status, ch.Name, ch.Message)
		if ch.Fix != "" {
			fmt.Fprintf(w, "\t\tfix: %s\n", ch.Fix)
		}
	}
	return w.Flush()
}
