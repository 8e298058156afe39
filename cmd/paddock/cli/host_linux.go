package cli

import (
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/linux"
)

func hostRoots() (instance.Roots, error) { return linux.Roots() }
