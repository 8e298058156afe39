package vm

import (
	"context"
	"fmt"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

func templateKey(vm *resource.VM) resource.Key {
	return resource.Key{Kind: resource.KindConfigMap.Name, Namespace: vm.Metadata.Namespace, Name: resource.TemplateName(vm.Metadata.Name)}
}

// ensureTemplate returns the VM's template copy, making it (or making it
// anew, when the VM's template or params changed since) from the template
// the VM names, merged with its params. A copy that an earlier VM of the
// same name left behind is taken over; one that is being deleted is let go
// first. A VM whose source template is gone keeps its copy.
func (c *Controller) ensureTemplate(ctx context.Context, vm *resource.VM) (*resource.ConfigMap, error) {
	key := templateKey(vm)
	var cur *resource.ConfigMap
	obj, err := c.store.Get(ctx, key)
	switch {
	case err == nil:
		cur = obj.(*resource.ConfigMap)
	case !resource.IsNotFound(err):
		return nil, err
	}
	if cur != nil && cur.Metadata.Terminating() {
		if err := controller.ReleaseOwned(ctx, c.store, key, resource.KindVM); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the template copy %s is being deleted; it is made anew once it is gone", key.Name)
	}
	src, err := sourceTemplate(ctx, c.store, vm)
	if err != nil {
		// The VM has its own copy: a source deleted since does not undo it.
		if cur != nil && ownedBy(cur, vm) && resource.ReasonOf(err) == resource.ReasonInvalid {
			return cur, nil
		}
		return nil, err
	}
	source := sourceOf(vm, src)
	if cur != nil && ownedBy(cur, vm) && cur.Metadata.Annotations[annotationSource] == source {
		return cur, nil
	}
	rendered, err := render(vm, src)
	if err != nil {
		return nil, err
	}
	// A VM moved to another template lets go of the one it left, before
	// its copy forgets which that was.
	if cur != nil && ownedBy(cur, vm) {
		if prev := cur.Metadata.Annotations[annotationTemplateRef]; prev != "" && prev != vm.Spec.TemplateRef {
			if err := c.releaseSource(ctx, vm, prev); err != nil {
				return nil, fmt.Errorf("let go of template %s: %w", prev, err)
			}
		}
	}
	desired := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{
			Name:        key.Name,
			Namespace:   key.Namespace,
			Labels:      map[string]string{resource.LabelVM: vm.Metadata.Name},
			Annotations: map[string]string{annotationSource: source, annotationTemplateRef: vm.Spec.TemplateRef},
		},
		Data: map[string]string{resource.TemplateKey: string(rendered)},
	}
	controller.Own(desired, vm)
	if cur == nil {
		out, err := c.store.Create(ctx, desired)
		if err != nil {
			return nil, err
		}
		return out.(*resource.ConfigMap), nil
	}
	// Remake the copy in place: its data and this VM as its one owner.
	out, err := controller.Update(ctx, c.store, key, func(cm *resource.ConfigMap) (bool, error) {
		cm.Data = desired.Data
		cm.Metadata.Labels = mergeLabels(cm.Metadata.Labels, desired.Metadata.Labels)
		if cm.Metadata.Annotations == nil {
			cm.Metadata.Annotations = map[string]string{}
		}
		cm.Metadata.Annotations[annotationSource] = source
		cm.Metadata.Annotations[annotationTemplateRef] = vm.Spec.TemplateRef
		cm.Metadata.OwnerReferences = desired.Metadata.OwnerReferences
		cm.Metadata.AddFinalizer(resource.OwnedByFinalizer(resource.KindVM.Name))
		return true, nil
	})
	return out, err
}

// releaseSource deletes the template name that vm was made from when
// `paddock vm create` made it (resource.MadeByVMCreate) and no other VM
// uses it any longer; a template the user made is kept. It runs in the
// VM's cleanup, before its finalizer comes off, and when the VM moved to
// another template, before its copy records that: a crash in between
// runs it again.
func (c *Controller) releaseSource(ctx context.Context, vm *resource.VM, name string) error {
	key := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: vm.Metadata.Namespace, Name: name}
	obj, err := c.store.Get(ctx, key)
	if resource.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	cm := obj.(*resource.ConfigMap)
	if cm.Metadata.Labels[resource.LabelMadeBy] != resource.MadeByVMCreate || cm.Metadata.Terminating() {
		return nil
	}
	vms, _, err := c.store.List(ctx, store.ListOptions{Kind: resource.KindVM, Namespace: key.Namespace})
	if err != nil {
		return err
	}
	for _, obj := range vms {
		other := obj.(*resource.VM)
		if other.Metadata.UID != vm.Metadata.UID && other.Spec.TemplateRef == key.Name && !other.Metadata.Terminating() {
			return nil
		}
	}
	// A template changed since it was read may have a new user: look again.
	_, err = c.store.Delete(ctx, key, store.DeleteOptions{ResourceVersion: cm.Metadata.ResourceVersion})
	if resource.IsNotFound(err) {
		return nil
	}
	return err
}

func ownedBy(cm *resource.ConfigMap, vm *resource.VM) bool {
	ref, ok := cm.Metadata.OwnerOfKind(resource.KindVM.Name)
	return ok && ref.UID == vm.Metadata.UID
}

func mergeLabels(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
