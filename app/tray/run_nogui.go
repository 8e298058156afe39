//go:build !cgo

package tray

import "errors"

// Available reports whether this build has the tray: it needs cgo.
const Available = false

// Run fails: the tray's GUI toolkit needs cgo.
func Run(Options) error {
	return errors.New("this paddock was built without cgo, so it has no tray: build it with CGO_ENABLED=1 (the README says which packages that needs)")
}
