//go:build darwin && !cgo

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// runTray fails: on macOS the tray's menu bar item needs cgo.
func (c *cli) runTray(*cobra.Command) error {
	return errors.New("this paddock was built without cgo, which the tray needs on macOS: build it with CGO_ENABLED=1")
}
