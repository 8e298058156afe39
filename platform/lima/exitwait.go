package lima

import (
	"context"
	"errors"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
)

// exitPoll is how often WaitStopped checks the processes where the OS
// cannot tell when one exits (see waitExit).
const exitPoll = 5 * time.Second

// errNoExitNotice is waitExit's answer where it cannot wait for an exit.
var errNoExitNotice = errors.New("no notice of a process's exit on this OS")

// WaitStopped returns once the instance's host agent or its VM process has
// exited, at once if either is not running, or when ctx ends (with ctx's
// error). The VM controller waits on it to notice a machine that died,
// instead of checking running VMs over and over. On Linux the wait is on
// pidfds, without polling; elsewhere the processes are checked every 5 s.
func (d *Driver) WaitStopped(ctx context.Context, name string) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	vmType := limayaml.VMType(inst.VMType)
	p, err := d.processes(inst.Dir, vmType)
	if err != nil || !p.hostAgentAlive || !p.driverAlive {
		return err
	}
	// The pids were checked before they are watched: a process that
	// exited in between (its pid possibly reused) is caught by the check
	// that waitExit makes once it watches them.
	err = waitExit(ctx, []int{p.hostAgentPID, p.driverPID}, func() bool {
		now, err := d.processes(inst.Dir, vmType)
		return err == nil && now == p
	})
	if !errors.Is(err, errNoExitNotice) {
		return err
	}
	tick := time.NewTicker(exitPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		now, err := d.processes(inst.Dir, vmType)
		if err != nil || now != p {
			return err
		}
	}
}
