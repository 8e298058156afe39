package vm

import (
	"context"
	"time"

	"paddock.dev/paddock/core/resource"
)

// watchRetry is how long the controller waits before it looks again at a
// running machine whose processes it could not watch.
const watchRetry = 5 * time.Second

// exitWatch is a wait for a running machine to stop.
type exitWatch struct{ cancel context.CancelFunc }

// watchExit waits, beside the reconciles, for the running machine of the
// VM at key to stop (its host agent or its VM process exits, on purpose or
// not) and then enqueues the VM, whose reconcile finds out which. A VM has
// one such wait at a time; it belongs to the controller's run.
func (c *Controller) watchExit(key resource.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.exits[key.Name]; ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &exitWatch{cancel: cancel}
	started := c.ctrl.Go(key, func(run context.Context) {
		defer context.AfterFunc(run, cancel)()
		defer c.endExit(key.Name, w)
		err := c.driver.WaitStopped(ctx, key.Name)
		if err != nil && ctx.Err() == nil {
			c.log.Warn("cannot watch a VM's processes; looking again later", "vm", key.Name, "retry", watchRetry, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(watchRetry):
			}
		}
		// Forgotten before the VM is enqueued, whose reconcile may watch
		// anew. A cancelled wait was let go (the VM is gone, or the daemon
		// stops), which does not wait for word of it.
		letGo := ctx.Err() != nil
		c.endExit(key.Name, w)
		if !letGo {
			c.ctrl.Enqueue(key)
		}
	})
	if !started {
		cancel()
		return
	}
	c.exits[key.Name] = w
}

// endExit forgets the VM's wait w once it returns, unless another
// replaced it.
func (c *Controller) endExit(name string, w *exitWatch) {
	w.cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exits[name] == w {
		delete(c.exits, name)
	}
}

// cancelExit lets go of the VM's wait for its machine to stop.
func (c *Controller) cancelExit(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.exits[name]; ok {
		w.cancel()
		delete(c.exits, name)
	}
}
