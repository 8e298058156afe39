package tray

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"

	"paddock.dev/paddock/core/resource"
)

// patchApp merge-patches the App's spec, creating the App first when there
// is none and the patch asks it to run. It returns the App as written.
func (t *Tray) patchApp(patch []byte) (*resource.App, error) {
	obj, err := t.opts.Client.Patch(t.ctx, resource.KindApp, "", resource.AppName, patch)
	if resource.IsNotFound(err) {
		app := &resource.App{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindApp.Name},
			Metadata: resource.ObjectMeta{Name: resource.AppName}}
		if obj, err = t.opts.Client.Create(t.ctx, app); err == nil || resource.ReasonOf(err) == resource.ReasonAlreadyExists {
			obj, err = t.opts.Client.Patch(t.ctx, resource.KindApp, "", resource.AppName, patch)
		}
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}

// setRunning starts or stops the App by its spec.running, which is what
// the API's start and stop do, and watches for it to settle.
func (t *Tray) setRunning(running bool) error {
	if !running && t.snapshot().App == nil {
		return nil
	}
	app, err := t.patchApp(fmt.Appendf(nil, `{"spec":{"running":%t}}`, running))
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
	_, err := t.opts.Client.VMAction(t.ctx, vm.Metadata.Namespace, vm.Metadata.Name, "restart", false, 0)
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

// copyDockerContext puts the command that makes the App's docker context
// the current one on the clipboard.
func (t *Tray) copyDockerContext() {
	text := "docker context use " + t.opts.DockerContext
	fyne.Do(func() { t.app.Clipboard().SetContent(text) })
}
