//go:build !cgo || !tray

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// runTray fails: the tray is only in a build with cgo and the tray tag.
// Its GUI toolkit needs cgo and X11 and OpenGL headers, and prints locale
// complaints from its package initialisers, so no other build carries it.
func (c *cli) runTray(*cobra.Command) error {
	return errors.New("this paddock was built without the tray: build it with CGO_ENABLED=1 go build -tags tray (the README says which packages that needs)")
}
