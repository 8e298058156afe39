//go:build !linux

package lima

import "context"

// waitExit cannot wait for an exit here: WaitStopped polls instead.
func waitExit(context.Context, []int, func() bool) error { return errNoExitNotice }
