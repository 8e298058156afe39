package app_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
)

// fakeDriver is a FAKE of the VM driver, for the App controller's fast
// tests only: its machines are entries in memory that boot at once. It
// provokes what a real machine does on request (a failed start, a machine
// that stops by itself) so that every branch of the App's Settled shows.
// The end-to-end tests run the App on real QEMU VMs through Lima.
type fakeDriver struct {
	mu       sync.Mutex
	machines map[string]*fakeMachine
	pending  map[string]bool
	// startErr, when set, is how every boot ends.
	startErr error
	// stopped is told the name of each machine that stops.
	stopped chan string
}

type fakeMachine struct {
	template []byte
	running  bool
	down     chan struct{} // closed when the running machine stops
	starts   int
}

var (
	_ vm.Driver    = (*fakeDriver)(nil)
	_ vm.Validator = (*fakeDriver)(nil)
)

func newFakeDriver() *fakeDriver {
	return &fakeDriver{machines: map[string]*fakeMachine{}, pending: map[string]bool{}, stopped: make(chan string, 100)}
}

// Validate accepts every template.
func (d *fakeDriver) Validate(template []byte) ([]resource.FieldError, error) {
	return nil, nil
}

func (d *fakeDriver) Create(_ context.Context, name string, template []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.machines[name] = &fakeMachine{template: template}
	d.pending[name] = true
	return nil
}

func (d *fakeDriver) Commit(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.pending, name)
	return nil
}

func (d *fakeDriver) Uncommitted() ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for n := range d.pending {
		out = append(out, n)
	}
	return out, nil
}

func (d *fakeDriver) Reconfigure(_ context.Context, name string, template []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[name]
	if !ok {
		return errors.New("no such machine")
	}
	m.template = template
	return nil
}

func (d *fakeDriver) Start(_ context.Context, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[name]
	if !ok {
		return errors.New("no such machine")
	}
	m.starts++
	if d.startErr == nil {
		m.running = true
		m.down = make(chan struct{})
	}
	return nil
}

func (d *fakeDriver) WaitRunning(context.Context, string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.startErr
}

func (d *fakeDriver) WaitStopped(ctx context.Context, name string) error {
	d.mu.Lock()
	m, ok := d.machines[name]
	if !ok || !m.running {
		d.mu.Unlock()
		return nil
	}
	down := m.down
	d.mu.Unlock()
	select {
	case <-down:
	case <-ctx.Done():
	}
	return nil
}

func (d *fakeDriver) Stop(_ context.Context, name string, _ time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopLocked(name)
	return nil
}

func (d *fakeDriver) stopLocked(name string) {
	if m, ok := d.machines[name]; ok && m.running {
		m.running = false
		close(m.down)
		d.stopped <- name
	}
}

func (d *fakeDriver) StopAll(ctx context.Context, names []string, grace time.Duration) error {
	for _, n := range names {
		d.Stop(ctx, n, grace)
	}
	return nil
}

func (d *fakeDriver) Delete(_ context.Context, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopLocked(name)
	delete(d.machines, name)
	delete(d.pending, name)
	return nil
}

func (d *fakeDriver) Inspect(name string) (vm.Instance, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.machines[name]
	if !ok {
		return vm.Instance{}, nil
	}
	return vm.Instance{Exists: true, Running: m.running, HostAgentAlive: m.running, Accel: "fake"}, nil
}

func (d *fakeDriver) Running() ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for n, m := range d.machines {
		if m.running {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// template returns the template the machine name was last given.
func (d *fakeDriver) template(name string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.machines[name]; ok {
		return string(m.template)
	}
	return ""
}

func (d *fakeDriver) exists(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.machines[name]
	return ok
}

// crash stops a running machine as if its QEMU died.
func (d *fakeDriver) crash(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopLocked(name)
}

func (d *fakeDriver) failStarts(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.startErr = err
}
