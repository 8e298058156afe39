//go:build !cgo

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// runTray fails: the tray's GUI toolkit needs cgo, and a build without it
// links none of the tray, so that no other command carries it.
func (c *cli) runTray(*cobra.Command) error {
	return errors.New("this paddock was built without cgo, so it has no tray: build it with CGO_ENABLED=1 (the README says which packages that needs)")
}
