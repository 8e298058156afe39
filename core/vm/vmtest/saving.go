package vmtest

import (
	"context"
	"fmt"

	"paddock.dev/paddock/core/vm"
)

// SavingDriver is a FakeDriver that also saves machines' states
// (vm.Saver): a saved machine is stopped, and its next start resumes it
// unless Discard dropped the state. A Save fault fails the save and
// leaves the machine running.
type SavingDriver struct{ *FakeDriver }

var _ vm.Saver = SavingDriver{}

// NewSavingDriver returns a saving fake driver with no machines.
func NewSavingDriver() SavingDriver { return SavingDriver{NewFakeDriver()} }

func (s SavingDriver) Save(ctx context.Context, name string) error {
	f := s.FakeDriver
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Save, Name: name}); err != nil {
		return err
	}
	m, ok := f.machines[name]
	if !ok || !m.running {
		return fmt.Errorf("save %s: not running", name)
	}
	m.hostAgent, m.running, m.saved = false, false, true
	f.broadcast()
	return nil
}

func (s SavingDriver) Discard(name, why string) error {
	f := s.FakeDriver
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.serve(Call{Op: Discard, Name: name}); err != nil {
		return err
	}
	if m, ok := f.machines[name]; ok {
		m.saved, m.coldWhy = false, why
	}
	return nil
}
