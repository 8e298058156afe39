package cli

import (
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/windows"
)

func hostRoots() (instance.Roots, error) { return windows.Roots() }
