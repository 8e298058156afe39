package tray

import (
	"errors"
	"fmt"

	"paddock.dev/paddock/api/client"
)

// setRunning starts or stops the App by its spec.running, which is what
// the API's start and stop do, and watches for it to settle.
func (t *Tray) setRunning(running bool) error {
	if !running && t.snapshot().App == nil {
		return nil
	}
	app, err := t.opts.Client.PatchApp(t.ctx, fmt.Appendf(nil, `{"spec":{"running":%t}}`, running))
	if err != nil {
		return err
	}
	t.expect(app.Metadata.Generation)
	return nil
}

// restart restarts the App's VM.
func (t *Tray) restart() error {
	vm := appVM(t.snapshot().VMs)
	if vm == nil {
		return errors.New("the App has no VM to restart yet")
	}
	_, err := t.opts.Client.VMAction(t.ctx, vm.Metadata.Namespace, vm.Metadata.Name, "restart", client.NoWait)
	return err
}

// openShell opens the user's terminal with a shell in the App's VM.
func (t *Tray) openShell() error {
	vm := appVM(t.snapshot().VMs)
	if vm == nil {
		return errors.New("the App has no VM to open a shell in yet")
	}
	argv := []string{t.opts.Executable, "--instance", t.opts.Instance, "vm", "shell", vm.Metadata.Name}
	cmd, err := terminal(argv)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open a terminal: %w", err)
	}
	go cmd.Wait()
	return nil
}
