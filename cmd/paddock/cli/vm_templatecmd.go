package cli

import (
	"github.com/spf13/cobra"

	"paddock.dev/paddock/platform/image"
)

func newVMTemplateCmd(c *cli) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "template",
		Short: "Print a Lima template for the guest image built on this host",
		Long: `Print a complete Lima template for a VM that boots the guest image
platform/linux/guestimage/build.sh built on this host (the newest one, or
the directory --image names), to pass to vm create --template.`,
		Example: `  paddock vm template > debian.yaml
  paddock vm create dev --template ./debian.yaml --start`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := image.VMTemplate(dir)
			if err != nil {
				return err
			}
			_, err = c.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&dir, "image", "", "a guest image directory that build.sh printed (default: the newest built)")
	return cmd
}
