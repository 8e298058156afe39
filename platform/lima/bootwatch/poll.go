package bootwatch

import (
	"context"
	"os"
	"time"
)

// Poll is how often PollUntil asks.
const Poll = 100 * time.Millisecond

// PollUntil returns once done reports true, asked at once and then every
// Poll, or when ctx ends.
func PollUntil(ctx context.Context, done func() bool) {
	tick := time.NewTicker(Poll)
	defer tick.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// WaitForFile returns once path exists, or when ctx ends.
func WaitForFile(ctx context.Context, path string) {
	PollUntil(ctx, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}
