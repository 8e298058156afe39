package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/labels"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// LabelApp marks the objects the App made (its VM and its templates) with
// the App's name.
const LabelApp = resource.Group + "/app"

// TemplateName is the name of the ConfigMap holding the App's template for
// engine with content text: a new template is a new name, so the VM takes
// it as a new templateRef and restarts into it. It is the one place that
// naming rule lives.
func TemplateName(engine string, text []byte) string {
	sum := sha256.Sum256(text)
	return "app-" + engine + "-" + hex.EncodeToString(sum[:4])
}

// blockedError is a state the App cannot leave by retrying at once: it is
// recorded in the Created condition with its reason.
type blockedError struct {
	reason string
	err    error
}

func (e *blockedError) Error() string { return e.err.Error() }
func (e *blockedError) Unwrap() error { return e.err }

// ensureTemplate returns the ConfigMap holding the App's current template,
// making it when missing.
func (c *Controller) ensureTemplate(ctx context.Context, app *resource.App) (*resource.ConfigMap, error) {
	text, err := c.opts.Template.Render(app.Spec)
	var pending *PendingError
	if errors.As(err, &pending) {
		return nil, &blockedError{pending.Reason, pending}
	}
	if err != nil {
		return nil, &blockedError{resource.ReasonTemplateFailed, fmt.Errorf("cannot make the VM's template: %w", err)}
	}
	key := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: app.Spec.Namespace, Name: TemplateName(app.Spec.ContainerEngine.Name, text)}
	obj, err := c.store.Get(ctx, key)
	switch {
	case err == nil:
		cm := obj.(*resource.ConfigMap)
		if cm.Metadata.Terminating() {
			if err := controller.ReleaseOwned(ctx, c.store, key, resource.KindApp); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("template %s is being deleted; it is made anew once it is gone", key.Name)
		}
		return cm, nil
	case !resource.IsNotFound(err):
		return nil, err
	}
	cm := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: map[string]string{LabelApp: app.Metadata.Name}},
		Data:     map[string]string{resource.TemplateKey: string(text)},
	}
	controller.Own(cm, app)
	out, err := c.store.Create(ctx, cm)
	if err != nil {
		return nil, err
	}
	return out.(*resource.ConfigMap), nil
}

// wantRunning reports whether the App's VM should run: the App should,
// and is not suspended.
func wantRunning(app *resource.App) bool { return app.Spec.Running && !app.Suspended() }

// desiredParams are the VM params the App owns: its sizes.
func desiredParams(app *resource.App) map[string]any {
	return map[string]any{"cpus": app.Spec.CPUs, "memory": app.Spec.Memory, "disk": app.Spec.Disk}
}

// ensureVM creates the App's VM, or brings the spec fields the App owns
// (running, cold, templateRef, the sizes among params) to what the App
// says, by a merge patch of those fields alone. It returns the VM as
// written, nil when there is none.
func (c *Controller) ensureVM(ctx context.Context, app *resource.App, src *resource.ConfigMap) (*resource.VM, error) {
	vm, err := c.ownedVM(ctx, app)
	if err != nil {
		return nil, err
	}
	key := vmKey(app)
	if vm == nil {
		nv := &resource.VM{
			TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindVM.Name},
			Metadata: resource.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Labels: map[string]string{LabelApp: app.Metadata.Name}},
			Spec:     resource.VMSpec{Running: wantRunning(app), Cold: app.Spec.Cold, TemplateRef: src.Metadata.Name, Params: desiredParams(app)},
		}
		controller.Own(nv, app)
		out, err := c.store.Create(ctx, nv)
		if err != nil {
			return nil, createFailed(err)
		}
		return out.(*resource.VM), nil
	}
	if vm.Metadata.Terminating() {
		// Deleted by someone else: let it go, and make it anew once gone.
		return vm, controller.ReleaseOwned(ctx, c.store, key, resource.KindApp)
	}
	patch, err := specPatch(app, vm, src.Metadata.Name)
	if err != nil || patch == nil {
		return vm, err
	}
	out, err := c.store.Patch(ctx, key, patch)
	if err != nil {
		return nil, rejected(err)
	}
	return out.(*resource.VM), nil
}

// rejected records an Invalid write as the App's state: retrying will not
// make the VM's driver accept it.
func rejected(err error) error {
	if resource.ReasonOf(err) == resource.ReasonInvalid {
		return &blockedError{resource.ReasonInvalidSpec, err}
	}
	return err
}

// createFailed records why the VM could not be created as the App's
// state, so that the App says it instead of waiting without a word. A
// write refused as Invalid does not pass by retrying; anything else (the
// driver's helper missing, a full disk) is tried again with the template,
// after templateRetry or when the App changes.
func createFailed(err error) error {
	if resource.ReasonOf(err) == resource.ReasonInvalid {
		return rejected(err)
	}
	return &blockedError{resource.ReasonCreateFailed, fmt.Errorf("cannot create the VM: %w", err)}
}

// specPatch returns the merge patch that gives vm the fields the App owns,
// or nil when they are as they should be.
func specPatch(app *resource.App, vm *resource.VM, templateRef string) ([]byte, error) {
	spec := map[string]any{}
	if vm.Spec.Running != wantRunning(app) {
		spec["running"] = wantRunning(app)
	}
	// How the VM stops and starts: a change restarts nothing.
	if vm.Spec.Cold != app.Spec.Cold {
		spec["cold"] = app.Spec.Cold
	}
	if vm.Spec.TemplateRef != templateRef {
		spec["templateRef"] = templateRef
	}
	// Compare as the store holds them: through JSON.
	raw, err := json.Marshal(desiredParams(app))
	if err != nil {
		return nil, err
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		return nil, err
	}
	params := map[string]any{}
	for k, v := range want {
		if !reflect.DeepEqual(vm.Spec.Params[k], v) {
			params[k] = v
		}
	}
	if len(params) > 0 {
		spec["params"] = params
	}
	if len(spec) == 0 {
		return nil, nil
	}
	return json.Marshal(map[string]any{"spec": spec})
}

// dropOldTemplates deletes the App's templates other than the current one.
func (c *Controller) dropOldTemplates(ctx context.Context, app *resource.App, current string) error {
	_, err := c.deleteTemplates(ctx, app, current)
	return err
}

// deleteTemplates deletes the App's templates except keep, releasing the
// App's finalizer on each, and returns how many are still there.
func (c *Controller) deleteTemplates(ctx context.Context, app *resource.App, keep string) (int, error) {
	objs, _, err := c.store.List(ctx, store.ListOptions{
		Kind:      resource.KindConfigMap,
		Namespace: app.Spec.Namespace,
		Labels:    labels.SelectorFromSet(labels.Set{LabelApp: app.Metadata.Name}),
	})
	if err != nil {
		return 0, err
	}
	remaining := 0
	for _, obj := range objs {
		cm := obj.(*resource.ConfigMap)
		ref, owned := cm.Metadata.OwnerOfKind(resource.KindApp.Name)
		if cm.Metadata.Name == keep || !owned || (ref.UID != app.Metadata.UID && !cm.Metadata.Terminating()) {
			continue
		}
		key := resource.KeyOf(cm)
		if err := controller.DeleteOwned(ctx, c.store, key, app); err != nil {
			return 0, err
		}
		if err := controller.ReleaseOwned(ctx, c.store, key, resource.KindApp); err != nil {
			return 0, err
		}
		if _, err := c.store.Get(ctx, key); err == nil {
			remaining++
		} else if !resource.IsNotFound(err) {
			return 0, err
		}
	}
	return remaining, nil
}
