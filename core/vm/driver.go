package vm

import (
	"context"
	"time"

	"paddock.dev/paddock/core/resource"
)

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
}

// Driver runs machines. Every method is safe for concurrent use.
type Driver interface {
	// Validate checks a complete template; a template the driver rejects
	// yields the fields at fault (their paths are the template's own).
	Validate(template []byte) ([]resource.FieldError, error)
	// Create makes the machine name from template. Until Commit, the
	// machine is listed by Uncommitted.
	Create(ctx context.Context, name string, template []byte) error
	Commit(name string) error
	Uncommitted() ([]string, error)
	// Reconfigure replaces the template of a stopped machine.
	Reconfigure(ctx context.Context, name string, template []byte) error
	// Start launches the machine's host agent, which outlives the daemon,
	// and returns; WaitRunning follows the boot and returns an error that
	// says why when it fails.
	Start(ctx context.Context, name string) error
	WaitRunning(ctx context.Context, name string) error
	// WaitStopped returns once the running machine stops (its processes
	// exit, on purpose or not), at once if it does not run, or when ctx
	// ends.
	WaitStopped(ctx context.Context, name string) error
	// Stop interrupts the machine, waits up to grace, then forces it.
	Stop(ctx context.Context, name string, grace time.Duration) error
	// StopAll stops several machines in parallel.
	StopAll(ctx context.Context, names []string, grace time.Duration) error
	// Delete removes the machine, stopping it first.
	Delete(ctx context.Context, name string) error
	Inspect(name string) (Instance, error)
	// Running lists the machines whose host agent lives.
	Running() ([]string, error)
}
