package vm

import (
	"context"
	"time"
)

// The VM controller drives machines through a driver (Lima's, in
// platform/lima), split by role as Lima splits its own drivers: Lifecycle
// changes a machine, Inspector tells what a machine is doing, and
// Validator (admission.go) checks templates. Every method of every role is
// safe for concurrent use.

// Driver is what the controller needs of a driver: both roles that touch
// machines.
type Driver interface {
	Lifecycle
	Inspector
}

// Lifecycle creates, starts, stops, reconfigures and deletes machines.
type Lifecycle interface {
	// Create makes the machine name from template. Until Commit, the
	// machine is listed by Uncommitted.
	Create(ctx context.Context, name string, template []byte) error
	Commit(name string) error
	Uncommitted() ([]string, error)
	// Reconfigure replaces the template of a stopped machine.
	Reconfigure(ctx context.Context, name string, template []byte) error
	// Start launches the machine's host agent, which outlives the daemon,
	// and returns; Inspector.WaitRunning follows the boot.
	Start(ctx context.Context, name string) error
	// Stop interrupts the machine, waits up to grace, then forces it.
	Stop(ctx context.Context, name string, grace time.Duration) error
	// StopAll stops several machines in parallel.
	StopAll(ctx context.Context, names []string, grace time.Duration) error
	// Delete removes the machine, stopping it first.
	Delete(ctx context.Context, name string) error
}

// Inspector tells what machines are doing, now or once it changes.
type Inspector interface {
	// Inspect reports on the machine name; one that does not exist is
	// not an error (Exists is false).
	Inspect(name string) (Instance, error)
	// Running lists the machines whose host agent lives.
	Running() ([]string, error)
	// WaitRunning follows the boot that Start began and returns nil once
	// the machine runs, or an error that says why the boot failed.
	WaitRunning(ctx context.Context, name string) error
	// WaitStopped returns once the running machine stops (its processes
	// exit, on purpose or not), at once if it does not run, or when ctx
	// ends.
	WaitStopped(ctx context.Context, name string) error
}

// Instance is what the driver knows about a VM's machine. Liveness comes
// from the processes, not from a status file.
type Instance struct {
	Exists bool
	// Running: the host agent and the VM process both live.
	Running bool
	// HostAgentAlive: the host agent lives (it may still be booting the VM).
	HostAgentAlive bool
	HostAgentPID   int
	// Accel is the accelerator of the last start: kvm, tcg, hvf, ...
	Accel string
	// Saved: the machine is stopped with its state saved (Saver), which
	// its next start tries to resume.
	Saved bool
	// Resumed: the last start resumed a saved state. Otherwise BootReason
	// says why it booted (empty from a driver that does not save).
	Resumed    bool
	BootReason string
}

// Saver is the role of a driver that can stop a machine with its state
// saved, so that its next Start resumes it where it stood instead of
// booting it. Start decides for itself whether a saved state fits; a
// machine whose state does not fit, or whose resume fails, boots, and
// Inspect says why.
type Saver interface {
	// Save saves the state of the running machine name and ends it. An
	// error says why it could not; the machine may then still run, and
	// the caller stops it.
	Save(ctx context.Context, name string) error
	// Discard drops the machine's saved state, if any, so that its next
	// start boots with why as the reason.
	Discard(name, why string) error
}
