package cli

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/platform/lima"
)

// limaDriver adapts platform/lima's Driver to the VM controller's Driver.
type limaDriver struct {
	d *lima.Driver
}

var (
	_ vm.Driver    = limaDriver{}
	_ vm.Validator = limaDriver{}
)

// newVMDriver returns the driver of the instance's machines: Lima, with
// its home in the instance's short directory, running host agents from
// this binary; the accelerator comes from PADDOCK_QEMU_ACCEL (auto when
// unset).
func newVMDriver(p instance.Paths, log *slog.Logger) (limaDriver, error) {
	exe, err := os.Executable()
	if err != nil {
		return limaDriver{}, err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return limaDriver{}, err
	}
	return limaDriver{&lima.Driver{LimaHome: p.LimaHome, Executable: exe, Logger: log}}, nil
}

func (l limaDriver) Validate(template []byte) ([]resource.FieldError, error) {
	err := l.d.Validate(template)
	var ve *lima.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := make([]resource.FieldError, len(ve.Problems))
	for i, p := range ve.Problems {
		field := p.Field
		if field == "" {
			field = "(template)"
		}
		out[i] = resource.FieldError{Field: field, Message: p.Message}
	}
	return out, nil
}

func (l limaDriver) Create(ctx context.Context, name string, template []byte) error {
	return l.d.Create(ctx, name, template)
}

func (l limaDriver) Commit(name string) error                  { return l.d.Commit(name) }
func (l limaDriver) Uncommitted() ([]string, error)            { return l.d.Uncommitted() }
func (l limaDriver) Start(ctx context.Context, n string) error { return l.d.Start(ctx, n) }

func (l limaDriver) WaitRunning(ctx context.Context, name string) error {
	return l.d.WaitRunning(ctx, name)
}

func (l limaDriver) Stop(ctx context.Context, name string, grace time.Duration) error {
	return l.d.Stop(ctx, name, grace)
}

func (l limaDriver) StopAll(ctx context.Context, names []string, grace time.Duration) error {
	return l.d.StopAll(ctx, names, grace)
}

func (l limaDriver) Delete(ctx context.Context, name string) error { return l.d.Delete(ctx, name) }

func (l limaDriver) Reconfigure(ctx context.Context, name string, template []byte) error {
	return l.d.Reconfigure(ctx, name, template)
}

func (l limaDriver) Inspect(name string) (vm.Instance, error) {
	inst, err := l.d.Inspect(name)
	if err != nil {
		return vm.Instance{}, err
	}
	return vm.Instance{
		Exists:         inst.Exists,
		Running:        inst.Running,
		HostAgentAlive: inst.HostAgentAlive,
		HostAgentPID:   inst.HostAgentPID,
		Accel:          inst.Accel,
	}, nil
}

func (l limaDriver) WaitStopped(ctx context.Context, name string) error {
	return l.d.WaitStopped(ctx, name)
}

func (l limaDriver) Running() ([]string, error) {
	live, err := l.d.LiveHostAgents()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(live))
	for i, inst := range live {
		names[i] = inst.Name
	}
	return names, nil
}
