package service

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
)

// Run runs daemon until it is asked to stop, and returns what daemon
// returns after its graceful shutdown. Under the service control manager
// the stop arrives as a stop or pre-shutdown control; in a console it
// arrives as a console control event, which Go delivers as os.Interrupt
// (Ctrl+C, Ctrl+Break) or SIGTERM (the console closing, log off,
// shutdown). Both cancel daemon's context.
//
// The SCM side is golang.org/x/sys/windows/svc itself rather than
// kardianos, whose handler can neither report a daemon that ends on its
// own nor take the pre-shutdown control.
func Run(instance string, daemon Daemon) error {
	isService, err := svc.IsWindowsService()
	if err != nil {
		return err
	}
	if !isService {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return daemon(ctx)
	}
	h := &scmHandler{daemon: daemon}
	// The event source was registered when the service was installed.
	if elog, err := eventlog.Open(Name(instance)); err == nil {
		defer elog.Close()
		h.report = func(msg string) { _ = elog.Error(1, msg) }
	}
	if err := svc.Run(Name(instance), h); err != nil {
		return err
	}
	return h.err
}

// stopWaitHint is how long the SCM is told a stop may take: the daemon's
// bound for stopping every VM.
const stopWaitHint = stopBound

// scmHandler runs the daemon as a service of the SCM.
type scmHandler struct {
	daemon Daemon
	report func(msg string) // writes to the Windows event log, if open
	err    error
}

// Execute runs the daemon and reports its states. A daemon that ends on
// its own is reported as stopped: cleanly (exit code 0, which the SCM does
// not treat as a failure) or with its error in the event log and a
// service-specific exit code, for which the SCM runs its recovery actions
// (the service is configured to recover from such non-crash failures).
func (h *scmHandler) Execute(_ []string, requests <-chan svc.ChangeRequest, changes chan<- svc.Status) (bool, uint32) {
	changes <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.daemon(ctx) }()
	changes <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptPreShutdown | svc.AcceptShutdown}
	for {
		select {
		case err := <-done:
			return h.ended(err, "the daemon ended on its own")
		case req := <-requests:
			switch req.Cmd {
			case svc.Interrogate:
				changes <- req.CurrentStatus
			case svc.Stop, svc.PreShutdown, svc.Shutdown:
				changes <- svc.Status{State: svc.StopPending, WaitHint: uint32(stopWaitHint.Milliseconds())}
				cancel()
				return h.ended(<-done, "the daemon's graceful stop failed")
			}
		}
	}
}

// ended records how the daemon ended and returns what svc reports.
func (h *scmHandler) ended(err error, what string) (bool, uint32) {
	h.err = err
	if err == nil {
		return false, 0
	}
	if h.report != nil {
		h.report(fmt.Sprintf("%s: %v", what, err))
	}
	return true, 1
}

// OwnLog reports whether the daemon must write its log to a file itself:
// under the service manager, which keeps no service's output.
func OwnLog() bool {
	isService, err := svc.IsWindowsService()
	return err == nil && isService
}
