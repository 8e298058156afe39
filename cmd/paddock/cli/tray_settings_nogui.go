//go:build !cgo || !tray

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// settingsWindowBuiltIn: this binary lacks the settings window; the tray
// looks for a paddock-settings that has it (see settingsExecutable).
const settingsWindowBuiltIn = false

// runTraySettings fails: the settings window is only in a build with cgo
// and the tray tag. Its GUI toolkit needs cgo and the X11 and OpenGL
// headers, and prints locale complaints from its package initialisers, so
// no other build carries it.
func (c *cli) runTraySettings(*cobra.Command) error {
	return errors.New("this paddock was built without the settings window: build it with CGO_ENABLED=1 go build -tags tray (the README says which packages that needs), or change the App with paddock set (for example: paddock set cpus=4)")
}
