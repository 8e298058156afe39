package live

import (
	"context"
	"maps"
	"sync"
	"time"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// boots follows the boot steps of the VMs that boot, from their host
// agents' logs (client.FollowBoot): a VM's from when its Running condition
// says Starting until it says anything else (it runs, its start failed, it
// stopped) or the VM is gone. Which VMs boot the watch says; the logs only
// name the step.
type boots struct {
	ctx context.Context
	// follow reads the boot of VM ns/name from its log lines written
	// since then and calls step with each of its steps, until ctx ends.
	follow func(ctx context.Context, ns, name string, since time.Time, step func(string))
	// stepped is called, under the snapshot's lock, when a step changed.
	stepped func()

	wg     sync.WaitGroup
	cancel map[string]context.CancelFunc // by menu.VMKey, of the boots followed
	steps  map[string]string             // by menu.VMKey, the last step seen
}

// booting reports whether vm's machine is booting: its start began and has
// not ended.
func booting(vm *resource.VM) bool {
	phase, reason := vm.PhaseAndReason()
	return phase == resource.PhaseStarting && reason == resource.ReasonStarting
}

// sync follows the boots of the VMs in vms that boot and stops following
// the others. The caller holds the lock that guards b and that step
// callbacks take (lock).
func (b *boots) sync(vms map[string]resource.Object, lock sync.Locker) {
	if b.cancel == nil {
		b.cancel = map[string]context.CancelFunc{}
		b.steps = map[string]string{}
	}
	now := map[string]*resource.VM{}
	for _, obj := range vms {
		if vm := obj.(*resource.VM); booting(vm) {
			now[menu.VMKey(vm.Metadata.Namespace, vm.Metadata.Name)] = vm
		}
	}
	for key, cancel := range b.cancel {
		if now[key] == nil {
			cancel()
			delete(b.cancel, key)
			delete(b.steps, key)
		}
	}
	for key, vm := range now {
		if b.cancel[key] != nil {
			continue
		}
		ctx, cancel := context.WithCancel(b.ctx)
		b.cancel[key] = cancel
		// The VM's controller says Starting before it starts the machine,
		// whose host agent replaces the earlier boot's log: lines older
		// than now are that boot's.
		since := time.Now()
		b.wg.Go(func() {
			b.follow(ctx, vm.Metadata.Namespace, vm.Metadata.Name, since, func(step string) {
				lock.Lock()
				defer lock.Unlock()
				if ctx.Err() != nil || b.steps[key] == step {
					return // the boot is no longer followed, or nothing changed
				}
				b.steps[key] = step
				b.stepped()
			})
		})
	}
}

// current returns a copy of the steps seen, nil when there are none.
func (b *boots) current() map[string]string {
	if len(b.steps) == 0 {
		return nil
	}
	return maps.Clone(b.steps)
}

// wait returns once every boot's following ended: after b.ctx ended.
func (b *boots) wait() { b.wg.Wait() }
