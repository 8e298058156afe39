package lima

import (
	"context"

	pwindows "paddock.dev/paddock/platform/windows"
)

// forgetDistro unregisters the instance's WSL distribution if it is still
// registered. Lima's delete unregisters it only when the instance's
// lima.yaml loads without errors, and removes the instance's directory
// either way, which would leave the distribution and its disk registered
// for good.
func forgetDistro(ctx context.Context, name string) error {
	return pwindows.Unregister(ctx, pwindows.Distro(name))
}
