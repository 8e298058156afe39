// Package vmtest holds FakeDriver, a fake of the VM controller's driver
// for tests. It exists for the faults a real machine cannot produce on
// demand (a start that fails, a host agent that dies mid-boot, a stop that
// hangs, a panic in the driver), so that the controller's every branch runs
// in milliseconds against the real store. The QEMU end-to-end tests check
// the real driver.
package vmtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
)

// Op names a driver operation, for faults and the call log.
type Op string

// The operations a fault can be set on. Boot is the boot that Start
// begins: its fault makes the host agent die mid-boot with that error.
const (
	Validate    Op = "Validate"
	Create      Op = "Create"
	Commit      Op = "Commit"
	Uncommitted Op = "Uncommitted"
	Reconfigure Op = "Reconfigure"
	Start       Op = "Start"
	Boot        Op = "Boot"
	Stop        Op = "Stop"
	Delete      Op = "Delete"
	Inspect     Op = "Inspect"
	WaitRunning Op = "WaitRunning"
	WaitStopped Op = "WaitStopped"
	Save        Op = "Save"
	Discard     Op = "Discard"
)

// Call is one call the fake served.
type Call struct {
	Op       Op
	Name     string
	Grace    time.Duration // of a Stop
	Template string        // of a Create or Reconfigure
}

// FakeDriver is a fake vm.Driver and vm.Validator: machines are entries in
// a map. A started machine boots at once unless HoldBoots is set; a fault
// set with Fail or Panic hits the next call of that operation on that
// machine. Every method is safe for concurrent use.
type FakeDriver struct {
	mu       sync.Mutex
	machines map[string]*machine
	faults   map[fault][]any // error or panic value, first served first
	hold     bool            // boots wait for FinishBoot
	hangStop map[string]bool
	waiting  int // waits in progress
	calls    []Call
	changed  chan struct{} // closed and replaced on every change
}

type fault struct {
	op   Op
	name string
}

type machine struct {
	template  string
	committed bool
	hostAgent bool // the host agent lives
	running   bool // the VM runs
	bootErr   error
	pid       int
	saved     bool   // stopped with its state saved (SavingDriver)
	resumed   bool   // the last start resumed
	coldWhy   string // why the last start booted, from Discard
}

var (
	_ vm.Driver    = (*FakeDriver)(nil)
	_ vm.Validator = (*FakeDriver)(nil)
)

// NewFakeDriver returns a fake driver with no machines.
func NewFakeDriver() *FakeDriver {
	return &FakeDriver{machines: map[string]*machine{}, faults: map[fault][]any{}, hangStop: map[string]bool{}, changed: make(chan struct{})}
}

// Fail makes the next call of op on machine name fail with err. Faults
// queue up: each call serves one.
func (f *FakeDriver) Fail(op Op, name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[fault{op, name}] = append(f.faults[fault{op, name}], err)
}

// Clear drops the faults still queued for op on machine name.
func (f *FakeDriver) Clear(op Op, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.faults, fault{op, name})
}

// Panic makes the next call of op on machine name panic with value.
func (f *FakeDriver) Panic(op Op, name string, value any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[fault{op, name}] = append(f.faults[fault{op, name}], panicValue{value})
}

type panicValue struct{ v any }

// HoldBoots makes started machines stay booting until FinishBoot.
func (f *FakeDriver) HoldBoots(hold bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = hold
}

// FinishBoot ends the boot of machine name: it runs when err is nil, or
// its host agent dies with err.
func (f *FakeDriver) FinishBoot(name string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.machines[name]
	if !ok || !m.hostAgent || m.running {
		panic(fmt.Sprintf("FinishBoot(%s): the machine is not booting", name))
	}
	f.endBoot(m, err)
}

// HangStops makes Stop of machine name hang until its context ends, as a
// stop that the guest ignores and the driver never forces would, or, when
// hang is false, stop normally again.
func (f *FakeDriver) HangStops(name string, hang bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hangStop[name] = hang
	f.broadcast()
}

// Crash kills machine name's host agent and VM, as kill -9 would.
func (f *FakeDriver) Crash(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.machines[name]; ok {
		m.hostAgent, m.running = false, false
		f.broadcast()
	}
}

// Calls returns the calls served on machine name, in order, leaving out
// the reads (Inspect, Uncommitted, Running and the waits).
func (f *FakeDriver) Calls(name string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many calls of op machine name was served.
func (f *FakeDriver) Count(op Op, name string) int {
	n := 0
	for _, c := range f.Calls(name) {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Machine reports on machine name as Inspect does, and the template it
// holds, without a fault or a log entry.
func (f *FakeDriver) Machine(name string) (vm.Instance, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inspect(name), f.template(name)
}

func (f *FakeDriver) template(name string) string {
	if m, ok := f.machines[name]; ok {
		return m.template
	}
	return ""
}

// Validate accepts a YAML mapping whose cpus, when set, is at least 1,
// and whose images each have a location. A fault set on it is the
// driver failing to check at all (its helper missing); Validate is not in
// the call log.
func (f *FakeDriver) Validate(name string, template []byte) ([]resource.FieldError, error) {
	err := func() error {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.fault(Validate, name)
	}()
	if err != nil {
		return nil, err
	}
	var t struct {
		CPUs   *int `json:"cpus"`
		Images []struct {
			Location string `json:"location"`
		} `json:"images"`
	}
	if err := yaml.Unmarshal(template, &t); err != nil {
		return []resource.FieldError{{Message: err.Error()}}, nil
	}
	var problems []resource.FieldError
	if t.CPUs != nil && *t.CPUs < 1 {
		problems = append(problems, resource.FieldError{Field: "cpus", Message: "must be at least 1"})
	}
	for i, img := range t.Images {
		if img.Location == "" {
			problems = append(problems, resource.FieldError{Field: fmt.Sprintf("images[%d].location", i), Message: "must not be empty"})
		}
	}
	return problems, nil
}

func (f *FakeDriver) Create(ctx context.Context, name string, template []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Create, Name: name, Template: string(template)}); err != nil {
		return err
	}
	if _, ok := f.machines[name]; ok {
		return fmt.Errorf("machine %s already exists", name)
	}
	f.machines[name] = &machine{template: string(template)}
	f.broadcast()
	return nil
}

func (f *FakeDriver) Commit(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Commit, Name: name}); err != nil {
		return err
	}
	m, ok := f.machines[name]
	if !ok {
		return fmt.Errorf("commit %s: no such machine", name)
	}
	m.committed = true
	return nil
}

func (f *FakeDriver) Uncommitted() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for name, m := range f.machines {
		if err := f.fault(Uncommitted, name); err != nil {
			return nil, err
		}
		if !m.committed {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Reconfigure fails for a machine whose host agent lives, as a driver
// that must not rewrite a running machine's template should.
func (f *FakeDriver) Reconfigure(ctx context.Context, name string, template []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Reconfigure, Name: name, Template: string(template)}); err != nil {
		return err
	}
	m, ok := f.machines[name]
	switch {
	case !ok:
		return fmt.Errorf("reconfigure %s: no such machine", name)
	case m.hostAgent:
		return fmt.Errorf("reconfigure %s: the machine runs", name)
	}
	m.template = string(template)
	return nil
}

// Start launches the host agent, which boots the machine at once unless
// boots are held or a Boot fault is set.
func (f *FakeDriver) Start(ctx context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Start, Name: name}); err != nil {
		return err
	}
	m, ok := f.machines[name]
	switch {
	case !ok:
		return fmt.Errorf("start %s: no such machine", name)
	case m.hostAgent:
		return fmt.Errorf("start %s: its host agent already runs", name)
	}
	m.hostAgent, m.bootErr = true, nil
	m.pid++
	m.resumed, m.saved = m.saved, false
	if m.resumed {
		m.coldWhy = ""
	}
	if err := f.fault(Boot, name); err != nil {
		f.endBoot(m, err)
	} else if !f.hold {
		f.endBoot(m, nil)
	}
	f.broadcast()
	return nil
}

func (f *FakeDriver) endBoot(m *machine, err error) {
	if err != nil {
		m.hostAgent, m.bootErr = false, err
	} else {
		m.running = true
	}
	f.broadcast()
}

func (f *FakeDriver) WaitRunning(ctx context.Context, name string) error {
	return f.wait(ctx, func() (bool, error) {
		if err := f.fault(WaitRunning, name); err != nil {
			return true, err
		}
		m, ok := f.machines[name]
		switch {
		case !ok:
			return true, fmt.Errorf("machine %s is gone", name)
		case m.running:
			return true, nil
		case !m.hostAgent && m.bootErr != nil:
			return true, m.bootErr
		case !m.hostAgent:
			return true, errors.New("the host agent exited")
		}
		return false, nil
	})
}

func (f *FakeDriver) WaitStopped(ctx context.Context, name string) error {
	return f.wait(ctx, func() (bool, error) {
		if err := f.fault(WaitStopped, name); err != nil {
			return true, err
		}
		m, ok := f.machines[name]
		return !ok || !m.running, nil
	})
}

// Stop stops the machine at once, unless its stops hang.
func (f *FakeDriver) Stop(ctx context.Context, name string, grace time.Duration) error {
	if err := f.serveUnlocked(Call{Op: Stop, Name: name, Grace: grace}); err != nil {
		return err
	}
	err := f.wait(ctx, func() (bool, error) { return !f.hangStop[name], nil })
	if err != nil {
		return fmt.Errorf("stop %s: %w", name, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.machines[name]; ok {
		m.hostAgent, m.running = false, false
		f.broadcast()
	}
	return nil
}

func (f *FakeDriver) StopAll(ctx context.Context, names []string, grace time.Duration) error {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() { errs[i] = f.Stop(ctx, name, grace) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (f *FakeDriver) Delete(ctx context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Delete, Name: name}); err != nil {
		return err
	}
	delete(f.machines, name)
	f.broadcast()
	return nil
}

func (f *FakeDriver) Inspect(name string) (vm.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fault(Inspect, name); err != nil {
		return vm.Instance{}, err
	}
	return f.inspect(name), nil
}

func (f *FakeDriver) inspect(name string) vm.Instance {
	m, ok := f.machines[name]
	if !ok {
		return vm.Instance{}
	}
	inst := vm.Instance{Exists: true, Running: m.running, HostAgentAlive: m.hostAgent, Accel: "tcg",
		Saved: m.saved, Resumed: m.resumed, BootReason: m.coldWhy}
	if m.hostAgent {
		inst.HostAgentPID = 1000 + m.pid
	}
	return inst
}

func (f *FakeDriver) Running() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for name, m := range f.machines {
		if m.hostAgent {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// serve logs call and returns its fault, if one is set. f.mu is held.
func (f *FakeDriver) serve(call Call) error {
	f.calls = append(f.calls, call)
	return f.fault(call.Op, call.Name)
}

func (f *FakeDriver) serveUnlocked(call Call) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.serve(call)
}

// fault takes the next fault of op on name: it returns an error, or
// panics. f.mu is held.
func (f *FakeDriver) fault(op Op, name string) error {
	k := fault{op, name}
	q := f.faults[k]
	if len(q) == 0 {
		return nil
	}
	v := q[0]
	if len(q) == 1 {
		delete(f.faults, k)
	} else {
		f.faults[k] = q[1:]
	}
	if p, ok := v.(panicValue); ok {
		panic(p.v) // every caller unlocks f.mu in a deferred call
	}
	return v.(error)
}

// Waiting is how many calls of WaitRunning, WaitStopped and Stop are
// waiting now: after the controller's Run returns, none should be.
func (f *FakeDriver) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

// wait returns once done, called with f.mu held, says so, or when ctx ends.
func (f *FakeDriver) wait(ctx context.Context, done func() (bool, error)) error {
	f.mu.Lock()
	f.waiting++
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.waiting--
		f.mu.Unlock()
	}()
	check := func() (bool, chan struct{}, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		ok, err := done()
		return ok, f.changed, err
	}
	for {
		ok, changed, err := check()
		if ok {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// broadcast wakes every wait. f.mu is held.
func (f *FakeDriver) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}
