package vm

import (
	"context"

	"paddock.dev/paddock/core/resource"
)

// follow waits, beside the reconciles, for the machine of the VM at key to
// boot, records how it ended, and enqueues the VM to report it. The wait
// belongs to the controller's run, not to one reconcile.
func (c *Controller) follow(key resource.Key, templateRV string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.boots[key.Name]; ok && !b.done {
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	b := &boot{cancel: cancel, templateRV: templateRV}
	c.boots[key.Name] = b
	go func() {
		err := c.driver.WaitRunning(ctx, key.Name)
		cancelled := ctx.Err() != nil
		cancel()
		c.mu.Lock()
		b.done, b.err = true, err
		c.mu.Unlock()
		// A cancelled boot was let go by a reconcile (or the shutdown),
		// which does not wait for word of it.
		if !cancelled {
			c.ctrl.Enqueue(key)
		}
	}()
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

// cancelBoot stops following a boot (the machine is stopped or deleted).
func (c *Controller) cancelBoot(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.boots[name]; ok {
		b.cancel()
		delete(c.boots, name)
	}
}

// clearBoot forgets a finished boot; failedGen, when not zero, is the
// generation whose start failed, which is not retried until the VM changes.
func (c *Controller) clearBoot(name string, failedGen int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.boots, name)
	if failedGen != 0 {
		c.failed[name] = failedGen
	} else {
		delete(c.failed, name)
	}
}

func (c *Controller) startFailed(name string, gen int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.failed[name]
	return ok && g == gen
}

// forget drops everything kept about a VM that is gone.
func (c *Controller) forget(name string) {
	c.cancelBoot(name)
	c.cancelExit(name)
	c.mu.Lock()
	delete(c.failed, name)
	c.mu.Unlock()
}
