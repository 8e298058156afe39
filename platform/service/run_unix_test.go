//go:build !windows

package service

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestRunStopsOnSignals checks the path systemd and launchd (SIGTERM) and
// a terminal (SIGINT) take to stop the daemon: the signal cancels the
// daemon's context and Run returns what the daemon returns after its
// shutdown.
func TestRunStopsOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
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
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, errShutdown) {
			t.Fatalf("%v: Run returned %v, want the daemon's %v", sig, err, errShutdown)
		}
	}
}
