//go:build cgo && tray

package cli

import (
	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/settings"
)

// settingsWindowBuiltIn: this binary shows the settings window itself.
const settingsWindowBuiltIn = true

// runTraySettings shows the tray's settings window until it is closed; the
// tray starts it and talks to it over its standard input and output.
func (c *cli) runTraySettings(cmd *cobra.Command) error {
	p, err := c.Paths()
	if err != nil {
		return err
	}
	log, err := c.Logger()
	if err != nil {
		return err
	}
	return settings.Run(settings.Options{
		Client: client.NewUnix(p.Socket),
		Socket: p.Socket,
		In:     cmd.InOrStdin(),
		Out:    c.stdout,
		Log:    log,
	})
}
