package service

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	kservice "github.com/kardianos/service"
)

// Run runs daemon until it is asked to stop, and returns what daemon
// returns after its graceful shutdown. Under the service control manager
// the stop arrives as a stop or shutdown control, which kardianos turns
// into a call of Stop; in a console it arrives as a console control event,
// which Go delivers as os.Interrupt (Ctrl+C, Ctrl+Break) or SIGTERM (the
// console closing, log off, shutdown). Both cancel daemon's context.
func Run(instance string, daemon Daemon) error {
	if kservice.Interactive() {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		return daemon(ctx)
	}
	p := &scmProgram{daemon: daemon, done: make(chan error, 1)}
	k, err := kservice.New(p, &kservice.Config{Name: Name(instance)})
	if err != nil {
		return err
	}
	if err := k.Run(); err != nil {
		return err
	}
	return p.err
}

// scmProgram runs the daemon as a kardianos program under the SCM.
type scmProgram struct {
	daemon Daemon
	cancel context.CancelFunc
	done   chan error
	err    error
}

func (p *scmProgram) Start(kservice.Service) error {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		err := p.daemon(ctx)
		if ctx.Err() == nil {
			// The daemon ended without being asked to: the SCM cannot be
			// told so through kardianos, so the process ends, and the
			// SCM's recovery action restarts it after a failure.
			if err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		}
		p.done <- err
	}()
	return nil
}

// Stop cancels the daemon and waits for its graceful shutdown, which the
// daemon bounds; kardianos reports the stop to the SCM when Stop returns.
func (p *scmProgram) Stop(kservice.Service) error {
	p.cancel()
	p.err = <-p.done
	return nil
}

// OwnLog reports whether the daemon must write its log to a file itself:
// under the service manager, which keeps no service's output.
func OwnLog() bool { return !kservice.Interactive() }
