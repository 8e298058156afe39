package tray

import (
	"errors"
	"fmt"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// setRunning starts or stops the App by its spec.running, which is what
// the API's start and stop do, and watches for it to settle.
func (t *Tray) setRunning(running bool) error {
	before := t.snapshot().App
	if !running && before == nil {
		return nil
	}
	if running && before != nil && before.Suspended() {
		// Woken, as 'paddock start' wakes it: its spec, and so its
		// generation, does not change; its status line follows the
		// resume.
		_, err := t.opts.Client.PatchApp(t.ctx, []byte(resource.UnsuspendPatch))
		return err
	}
	app, err := t.opts.Client.PatchApp(t.ctx, fmt.Appendf(nil, `{"spec":{"running":%t}}`, running))
	if err != nil {
		return err
	}
	t.expect(app.Metadata.Generation)
	return nil
}

// restart restarts the App's VM; its failure is the App's.
func (t *Tray) restart() error {
	vm := appVM(t.snapshot().VMs)
	if vm == nil {
		return errors.New("the App has no VM to restart yet")
	}
	err := t.vmAction(vm.Metadata.Namespace, vm.Metadata.Name, "restart")
	var f failure
	if errors.As(err, &f) {
		f.title = "Paddock failed"
		return f
	}
	return err
}

// failure is an action's failure as its notification says it.
type failure struct{ title, body string }

func (f failure) Error() string { return f.title + ": " + f.body }

// vmAction asks VM ns/name to start, stop or restart, and waits until it
// did or failed (the API's wait, as `paddock vm start` does): a failure
// is the error, so each failed action is announced, even one that fails
// as the one before did.
func (t *Tray) vmAction(ns, name, action string) error {
	app := appVM(t.snapshot().VMs)
	ofApp := app != nil && app.Metadata.Namespace == ns && app.Metadata.Name == name
	if ofApp {
		t.mu.Lock()
		t.watch.appVMActions++
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			t.watch.appVMActions--
			t.mu.Unlock()
		}()
	}
	vm, err := t.opts.Client.VMAction(t.ctx, ns, name, action, client.WaitAtMost(0))
	if err != nil {
		return err
	}
	if c := wire.VMFailure(vm); c != nil {
		body := c.Message
		if body == "" {
			body = c.Reason
		}
		return failure{fmt.Sprintf("VM %s did not %s", name, action), body}
	}
	return nil
}

// openShell opens the user's terminal with a shell in the App's VM:
// 'paddock shell', which wakes a suspended App first.
func (t *Tray) openShell() error {
	if appVM(t.snapshot().VMs) == nil {
		return errors.New("the App has no VM to open a shell in yet")
	}
	argv := []string{t.opts.Executable, "--instance", t.opts.Instance, "shell"}
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
