package vm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm/vmtest"
)

func TestStopSavesTheStateAndStartResumesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.saving = true
	e.start()
	key := e.createVM("dev", true)
	if v := e.running(key); !hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot) {
		t.Errorf("first start: Running = %+v, want True ColdBoot", cond(v, resource.VMRunning))
	}

	e.setRunning(key, false)
	v := e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
	if msg := cond(v, resource.VMRunning).Message; !strings.Contains(msg, "state saved") {
		t.Errorf("Stopped says %q, want that the state is saved", msg)
	}
	if n := e.fd.Count(vmtest.Stop, "dev"); n != 0 {
		t.Errorf("the stop shut the machine down (%d Stop calls) instead of saving it", n)
	}

	e.setRunning(key, true)
	v = e.waitCond(key, resource.VMRunning, true, resource.ReasonResumed)
	if v.Status.RestartCount != 2 {
		t.Errorf("restartCount %d after the resume, want 2", v.Status.RestartCount)
	}
}

func TestSaveThatFailsShutsDownAndSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.saving = true
	e.fd.Fail(vmtest.Save, "dev", errors.New("umount: /home/u: target is busy"))
	e.start()
	key := e.createVM("dev", true)
	e.running(key)

	e.setRunning(key, false)
	v := e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
	msg := cond(v, resource.VMRunning).Message
	if !strings.Contains(msg, "full shutdown") || !strings.Contains(msg, "target is busy") {
		t.Errorf("Stopped says %q, want a full shutdown and the save's reason", msg)
	}
	if inst, _ := e.fd.Machine("dev"); inst.Running || inst.HostAgentAlive {
		t.Errorf("the machine still runs after its save failed: %+v", inst)
	}
	e.setRunning(key, true)
	e.waitCond(key, resource.VMRunning, true, resource.ReasonColdBoot)
}

func TestColdSpecShutsDownAndBoots(t *testing.T) {
	t.Parallel()
	e, key := runningOnASavingDriver(t)

	// A stop with spec.cold shuts down, saving nothing.
	e.patch(key, map[string]any{"spec": map[string]any{"running": false, "cold": true}})
	v := e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
	if msg := cond(v, resource.VMRunning).Message; !strings.Contains(msg, "spec.cold") {
		t.Errorf("Stopped says %q, want the full shutdown spec.cold asked for", msg)
	}
	if e.fd.Count(vmtest.Save, "dev") != 0 || e.fd.Count(vmtest.Stop, "dev") != 1 {
		t.Errorf("calls %v: want one Stop and no Save", ops(e.fd.Calls("dev")))
	}

	// A saved state is dropped by a start with spec.cold, which boots.
	e.patch(key, map[string]any{"spec": map[string]any{"running": true, "cold": false}})
	e.waitCond(key, resource.VMRunning, true, resource.ReasonColdBoot)
	e.setRunning(key, false)
	e.waitFor(key, "stopped with its state saved", func(v *resource.VM) bool {
		c := cond(v, resource.VMRunning)
		return c.Reason == resource.ReasonStopped && strings.Contains(c.Message, "state saved")
	})
	e.patch(key, map[string]any{"spec": map[string]any{"running": true, "cold": true}})
	v = e.waitCond(key, resource.VMRunning, true, resource.ReasonColdBoot)
	if msg := cond(v, resource.VMRunning).Message; !strings.Contains(msg, "spec.cold asks for a full boot") {
		t.Errorf("Running says %q, want why it booted", msg)
	}
}

// A daemon that stops saves the machines a stop would save, and shuts the
// rest down: the next daemon resumes the first and boots the others.
func TestShutdownSavesWhatAStopWouldSave(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.saving = true
	e.fd.Fail(vmtest.Save, "busy", errors.New("umount: /home/u: target is busy"))
	e.start()
	dev, busy, cold := e.createVM("dev", true), e.createVM("busy", true), e.createVM("cold", true)
	e.patch(cold, map[string]any{"spec": map[string]any{"cold": true}})
	for _, key := range []resource.Key{dev, busy, cold} {
		e.running(key)
	}

	e.stopController()
	if err := e.ctrl.Shutdown(t.Context(), 20*time.Second); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	for _, name := range []string{"dev", "busy", "cold"} {
		if inst, _ := e.fd.Machine(name); inst.Running || inst.HostAgentAlive {
			t.Errorf("%s still runs after Shutdown: %+v", name, inst)
		}
	}
	if e.fd.Count(vmtest.Stop, "dev") != 0 || e.fd.Count(vmtest.Save, "cold") != 0 || e.fd.Count(vmtest.Stop, "busy") != 1 {
		t.Errorf("calls: dev %v, busy %v, cold %v: want dev saved, busy's failed save followed by a Stop, cold stopped",
			ops(e.fd.Calls("dev")), ops(e.fd.Calls("busy")), ops(e.fd.Calls("cold")))
	}

	e.start()
	e.waitCond(dev, resource.VMRunning, true, resource.ReasonResumed)
	e.waitCond(busy, resource.VMRunning, true, resource.ReasonColdBoot)
	e.waitCond(cold, resource.VMRunning, true, resource.ReasonColdBoot)
}

// A restart, asked for or for a new template, shuts the machine down and
// boots it, and the boot says which it was rather than that no state was
// saved.
func TestRestartBootsAndSaysWhy(t *testing.T) {
	t.Parallel()
	e, key := runningOnASavingDriver(t)

	e.annotate(key, resource.AnnotationRestartRequested)
	v := e.waitFor(key, "restarted", func(v *resource.VM) bool {
		return v.Status.RestartCount == 2 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	if msg := cond(v, resource.VMRunning).Message; !strings.HasSuffix(msg, "it booted cold: a restart was asked for") {
		t.Errorf("after a restart Running says %q, want that a restart was asked for", msg)
	}

	e.patch(key, map[string]any{"spec": map[string]any{"params": map[string]any{"cpus": 2}}})
	v = e.waitFor(key, "restarted into the new template", func(v *resource.VM) bool {
		return v.Status.RestartCount == 3 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	if msg := cond(v, resource.VMRunning).Message; !strings.HasSuffix(msg, "it booted cold: its template changed") {
		t.Errorf("after a template change Running says %q, want that the template changed", msg)
	}
	if n := e.fd.Count(vmtest.Save, "dev"); n != 0 {
		t.Errorf("a restart saved the machine's state %d times, want a shutdown", n)
	}
}

// runningOnASavingDriver starts a controller whose driver saves states, and
// on it the VM dev, running.
func runningOnASavingDriver(t *testing.T) (*env, resource.Key) {
	t.Helper()
	e := newEnv(t)
	e.saving = true
	e.start()
	key := e.createVM("dev", true)
	e.running(key)
	return e, key
}
