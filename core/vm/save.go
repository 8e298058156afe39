package vm

import (
	"context"

	"paddock.dev/paddock/core/resource"
)

// A stop saves the state of a running machine, through a driver that is
// a Saver, unless the VM asks for cold stops and starts (spec.cold); a
// save that fails falls back to a full shutdown, and the Running
// condition says which it was. Restarts (asked for, or for a new
// template) always shut down and boot.

// coldAsked is the reason a VM boots when its spec asks for it.
const coldAsked = "spec.cold asks for a full boot"

// stop stops the VM's running machine, saving its state where it can, and
// returns the message of the Running condition that says how it stopped.
func (c *Controller) stop(ctx context.Context, vm *resource.VM, inst Instance) (string, error) {
	name := vm.Metadata.Name
	saver, canSave := c.driver.(Saver)
	if canSave && !vm.Spec.Cold && inst.Running {
		err := saver.Save(ctx, name)
		if err == nil {
			return stoppedMessage(Instance{Saved: true}, false), nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		c.log.Warn("cannot save the VM's state; shutting it down", "vm", name, "err", err)
		if err := c.driver.Stop(ctx, name, c.grace); err != nil {
			return "", err
		}
		return "the VM is stopped with a full shutdown: its state could not be saved: " + err.Error(), nil
	}
	if err := c.driver.Stop(ctx, name, c.grace); err != nil {
		return "", err
	}
	return stoppedMessage(Instance{}, vm.Spec.Cold && canSave), nil
}

// stoppedMessage is the Running condition's message for a stopped
// machine: whether its state is saved, or that it was shut down as the
// spec asks (cold).
func stoppedMessage(inst Instance, cold bool) string {
	switch {
	case inst.Saved:
		return "the VM is stopped with its state saved; its next start resumes it"
	case cold:
		return "the VM is stopped with a full shutdown, as spec.cold asks"
	}
	return "the VM is stopped"
}

// discard drops the saved state of the machine name, through a driver
// that saves, so that its next start boots with why as the reason.
func (c *Controller) discard(name, why string) error {
	if s, ok := c.driver.(Saver); ok {
		return s.Discard(name, why)
	}
	return nil
}

// startedReason is the reason and message of the Running condition of a
// running machine: Resumed, or ColdBoot with why it did not resume.
func startedReason(inst Instance) (string, string) {
	switch {
	case inst.Resumed:
		return resource.ReasonResumed, "the VM is running: it resumed the state saved at its last stop"
	case inst.BootReason != "":
		return resource.ReasonColdBoot, "the VM is running; it booted cold: " + inst.BootReason
	}
	return resource.ReasonColdBoot, "the VM is running"
}
