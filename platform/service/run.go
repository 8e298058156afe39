package service

import "context"

// Daemon is the daemon's main loop: it runs until ctx is cancelled, then
// shuts down gracefully (every VM stopped within its bound, the store
// closed) and returns.
type Daemon func(ctx context.Context) error
