//go:build !windows

package lima

import "context"

// forgetDistro has nothing to do: WSL distributions exist on Windows only.
func forgetDistro(context.Context, string) error { return nil }
