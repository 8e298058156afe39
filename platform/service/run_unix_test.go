//go:build !windows

package service

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestRunStopsOnSIGTERM checks the path systemd and launchd take to stop
// the daemon: SIGTERM cancels the daemon's context and Run returns what
// the daemon returns after its shutdown.
func TestRunStopsOnSIGTERM(t *testing.T) {
	errShutdown := errors.New("shut down")
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run("default", func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return errShutdown
		})
	}()
	<-started
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, errShutdown) {
		t.Fatalf("Run returned %v, want the daemon's %v", err, errShutdown)
	}
}
