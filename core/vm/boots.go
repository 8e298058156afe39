package vm

import (
	"context"
	"errors"

	"paddock.dev/paddock/core/resource"
)

// errBootLost is a boot's outcome when following it broke off (a bug in
// the driver's wait, recovered by the controller runtime).
var errBootLost = errors.New("following the boot broke off; see the daemon's log")

// boot is a start that is being followed to Running.
type boot struct {
	cancel context.CancelFunc
	done   bool
	err    error
}

// follow waits, beside the reconciles, for the machine of the VM at key to
// boot, records how it ended, and enqueues the VM to report it. The wait
// belongs to the controller's run, not to one reconcile. The VM has no
// other boot: ensureRunning follows one only when it has none.
func (c *Controller) follow(key resource.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	b := &boot{cancel: cancel}
	started := c.ctrl.Go(key, func(run context.Context) {
		defer context.AfterFunc(run, cancel)()
		c.waitBoot(ctx, key.Name, b)
		// A boot that was let go (the VM stopped or is gone, or the daemon
		// stops) enqueues it too; its reconcile finds nothing to do.
		c.ctrl.Enqueue(key)
	})
	if !started {
		cancel() // the controller stops; its next run looks at the machine afresh
		return
	}
	c.boots[key.Name] = b
}

// waitBoot waits for the boot and records its outcome in b, whatever way
// the wait ends.
func (c *Controller) waitBoot(ctx context.Context, name string, b *boot) {
	err := errBootLost
	defer func() {
		b.cancel()
		c.mu.Lock()
		b.done, b.err = true, err
		c.mu.Unlock()
	}()
	err = c.driver.WaitRunning(ctx, name)
	if ctx.Err() != nil {
		err = nil // a boot let go says nothing of how it went; the reconcile looks at the machine
	}
}

// bootOf returns a copy of the VM's boot, or nil.
func (c *Controller) bootOf(name string) *boot {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.boots[name]
	if !ok {
		return nil
	}
	cp := *b
	return &cp
}

// cancelBoot stops following a boot (the machine is stopped or deleted),
// or forgets one that ended.
func (c *Controller) cancelBoot(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.boots[name]; ok {
		b.cancel()
		delete(c.boots, name)
	}
}

// forget drops everything kept about a VM that is gone.
func (c *Controller) forget(name string) {
	c.cancelBoot(name)
	c.cancelExit(name)
}
