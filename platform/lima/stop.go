package lima

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
)

// pidGoneTimeout bounds the wait for killed processes to disappear.
const pidGoneTimeout = 10 * time.Second

// stopPoll is how often Stop checks whether the processes are gone.
const stopPoll = 100 * time.Millisecond

// Stop stops the instance: it interrupts the host agent, which shuts the
// guest down and exits, and waits up to grace (and ctx) for the host agent
// and the VM process to be gone; whatever still runs then is killed, and
// stale pid and socket files are removed. grace 0 kills at once. The
// interrupt is SIGINT on Unix; on Windows it is a CTRL_BREAK_EVENT to the
// host agent's process group, which Go delivers to it as os.Interrupt, when
// one can reach it (interrupt, in process_windows.go), else the host agent
// is killed at once; the kill is SIGKILL on Unix, TerminateProcess on
// Windows. A machine killed rather than shut down boots next saying so.
// Stopping a stopped instance, or one that does not exist, succeeds.
func (d *Driver) Stop(ctx context.Context, name string, grace time.Duration) error {
	if err := d.init(); err != nil {
		return err
	}
	state, err := d.Describe(name)
	if err != nil || !state.Exists {
		return err
	}
	poweredOff := "" // why the machine is killed rather than shut down
	if state.HostAgentAlive && grace > 0 {
		sent, reason, err := interrupt(state.HostAgentPID)
		if err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("instance %s: interrupt host agent %d: %w", name, state.HostAgentPID, err)
		}
		if !sent {
			// Only on Windows: a console control event reaches only
			// processes on the sender's console.
			d.Logger.Warn("cannot ask the host agent to stop gracefully; killing it", "instance", name, "hostAgent", state.HostAgentPID, "reason", reason)
			grace = 0
			poweredOff = "its host agent could not be asked to shut it down at its last stop (" + reason + "), and it was powered off"
		}
	}
	if state.HostAgentAlive && grace > 0 {
		d.Logger.Info("stopping instance gracefully", "instance", name, "hostAgent", state.HostAgentPID, "grace", grace)
		waitCtx, cancel := context.WithTimeout(ctx, grace)
		err := d.waitStopped(waitCtx, name)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("instance %s: stopping: %w", name, ctx.Err())
		}
		d.Logger.Warn("instance did not stop within its grace period; killing it", "instance", name, "grace", grace)
		poweredOff = fmt.Sprintf("its guest did not shut down within %s at its last stop and was powered off", grace)
	}
	if state, err = d.Describe(name); err != nil {
		return err
	}
	if err := d.clearLeftovers(state); err != nil {
		return err
	}
	if poweredOff != "" {
		// Its next boot says why its file systems were not unmounted.
		return d.discardTo(state.Dir, poweredOff)
	}
	return nil
}

// StopAll stops the named instances in parallel, each as Stop does, so that
// stopping several takes about as long as stopping the slowest.
func (d *Driver) StopAll(ctx context.Context, names []string, grace time.Duration) error {
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { errs[i] = d.Stop(ctx, n, grace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// waitStopped waits until neither the host agent nor the VM process of the
// instance is alive, or ctx ends.
func (d *Driver) waitStopped(ctx context.Context, name string) error {
	inst, err := d.Describe(name)
	if err != nil || !inst.Exists {
		return err
	}
	tick := time.NewTicker(stopPoll)
	defer tick.Stop()
	for {
		p, err := d.processes(inst.Dir, limayaml.VMType(inst.VMType))
		if err != nil {
			return err
		}
		if !p.hostAgentAlive && !p.driverAlive {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// waitGone is waitStopped with a timeout, for processes that were killed.
func (d *Driver) waitGone(name string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.waitStopped(ctx, name); err != nil {
		return fmt.Errorf("instance %s: processes still alive after being killed: %w", name, err)
	}
	return nil
}
