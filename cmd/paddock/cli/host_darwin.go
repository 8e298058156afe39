package cli

import (
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/darwin"
)

func hostRoots() (instance.Roots, error) { return darwin.Roots() }
