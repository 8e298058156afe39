//go:build !windows

package service

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Run runs daemon until SIGTERM or SIGINT, which is how systemd and launchd
// stop a service and how a terminal interrupts a foreground daemon: both
// cancel daemon's context, and Run returns what daemon returns after its
// graceful shutdown. A second signal is not handled here and ends the
// process at once.
func Run(instance string, daemon Daemon) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // restore default handling: a second signal kills
	}()
	return daemon(ctx)
}

// OwnLog reports whether the daemon must write its log to a file itself:
// as a launchd job, whose plist may name no output file (the packaged
// LaunchAgent cannot name a file in each user's home). systemd keeps the
// output in the journal.
func OwnLog() bool { return launchdJob(os.Getenv("XPC_SERVICE_NAME")) }
