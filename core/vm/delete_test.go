package vm_test

import (
	"errors"
	"testing"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/vm/vmtest"
)

const holdFinalizer = "test.example/hold"

func copyKey(vm string) resource.Key {
	return resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: resource.TemplateName(vm)}
}

func (e *env) getCopy(vm string) (*resource.ConfigMap, error) {
	obj, err := e.st.Get(e.t.Context(), copyKey(vm))
	if err != nil {
		return nil, err
	}
	return obj.(*resource.ConfigMap), nil
}

func (e *env) hold(key resource.Key, hold bool) {
	e.t.Helper()
	if _, err := controller.Update(e.t.Context(), e.st, key, func(obj resource.Object) (bool, error) {
		if hold {
			return obj.GetMeta().AddFinalizer(holdFinalizer), nil
		}
		return obj.GetMeta().RemoveFinalizer(holdFinalizer), nil
	}); err != nil {
		e.t.Fatal(err)
	}
}

func TestDeleteRemovesTheMachineAndTheCopy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	key := e.createVM("dev", true)
	e.running(key)

	e.fd.Fail(vmtest.Delete, "dev", errors.New("device or resource busy"))
	if _, err := e.st.Delete(t.Context(), key, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(key)
	if inst, _ := e.fd.Machine("dev"); inst.Exists {
		t.Errorf("the machine is left: %+v", inst)
	}
	if n := e.fd.Count(vmtest.Delete, "dev"); n != 2 {
		t.Errorf("Delete called %d times, want a retry after the failure", n)
	}
	if _, err := e.getCopy("dev"); !resource.IsNotFound(err) {
		t.Errorf("the template copy is left: %v", err)
	}
}

// A copy that another finalizer holds keeps its VM Terminating until it is
// gone; the VM's controller does not strip finalizers that are not its own.
func TestDeleteWaitsForTheCopy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	key := e.createVM("dev", false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
	e.hold(copyKey("dev"), true)

	if _, err := e.st.Delete(t.Context(), key, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitFor(key, "waiting for its copy", func(*resource.VM) bool {
		cm, err := e.getCopy("dev")
		return err == nil && cm.Metadata.Terminating() && len(cm.Metadata.Finalizers) == 1
	})
	if v := e.get(key); !v.Metadata.HasFinalizer(resource.FinalizerCleanup) {
		t.Fatal("the VM let go before its copy was gone")
	}
	e.hold(copyKey("dev"), false)
	e.waitGone(key)
}

// A copy an earlier VM of the same name left while it was being deleted
// is let go by the new VM, and made anew once it is gone.
func TestCopyBeingDeletedIsMadeAnew(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.leaveTerminatingCopy("dev")
	e.start()
	e.copyMadeAnew(e.createVM("dev", true))
}

// leaveTerminatingCopy leaves the template copy of an earlier VM named vm
// that was deleted while a finalizer (holdFinalizer) still holds it.
func (e *env) leaveTerminatingCopy(vm string) {
	e.t.Helper()
	e.createTemplate("debian", debianTemplate)
	gone := newVM(vm, false)
	gone.Metadata.UID = "uid-of-a-vm-long-gone"
	leftover := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: resource.TemplateName(vm), Namespace: "default", Finalizers: []string{holdFinalizer}},
		Data:     map[string]string{resource.TemplateKey: "cpus: 9\n"},
	}
	controller.Own(leftover, gone)
	if _, err := e.st.Create(e.t.Context(), leftover); err != nil {
		e.t.Fatal(err)
	}
	if err := controller.DeleteOwned(e.t.Context(), e.st, copyKey(vm), gone); err != nil {
		e.t.Fatal(err)
	}
}

// copyMadeAnew checks that the VM "dev" at key lets the copy that
// leaveTerminatingCopy left go, touches no machine while it is there, and
// runs with a copy of its own once the hold is lifted.
func (e *env) copyMadeAnew(key resource.Key) {
	e.t.Helper()
	t := e.t
	e.waitFor(key, "letting the old copy go", func(*resource.VM) bool {
		cm, err := e.getCopy("dev")
		return err == nil && len(cm.Metadata.Finalizers) == 1 // owned-by released: only the hold is left
	})
	if n := len(e.fd.Calls("dev")); n != 0 {
		t.Fatalf("the machine was touched before its copy was made: %v", e.fd.Calls("dev"))
	}
	e.hold(copyKey("dev"), false)
	v := e.running(key)
	cm, err := e.getCopy("dev")
	if err != nil {
		t.Fatal(err)
	}
	if ref, ok := cm.Metadata.OwnerOfKind(resource.KindVM.Name); !ok || ref.UID != v.Metadata.UID || cm.Data[resource.TemplateKey] != debianTemplate {
		t.Errorf("the copy is owned by %+v and holds %q, want the new VM's", ref, cm.Data[resource.TemplateKey])
	}
}

// A VM that is deleted before its controller took it on has nothing to
// clean up: the controller leaves it to the finalizers it carries.
func TestDeletedBeforeTakenOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createTemplate("debian", debianTemplate)
	v := newVM("dev", true)
	v.Metadata.Finalizers = []string{holdFinalizer}
	obj, err := e.st.Create(t.Context(), v)
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	if _, err := e.st.Delete(t.Context(), key, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.start()
	other := e.createVM("other", false) // reconciled after dev: dev's turn is over
	e.waitCond(other, resource.VMRunning, false, resource.ReasonStopped)
	if calls := e.fd.Calls("dev"); len(calls) != 0 {
		t.Errorf("a VM deleted before it was taken on reached the driver: %v", calls)
	}
	if _, err := e.getCopy("dev"); !resource.IsNotFound(err) {
		t.Errorf("a copy was made for a deleted VM: %v", err)
	}
	e.hold(key, false)
	e.waitGone(key)
}

func TestCopyOwnedByAGoneVMIsTakenOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createTemplate("debian", debianTemplate)
	stale := &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: resource.TemplateName("dev"), Namespace: "default",
			Labels: map[string]string{"kept": "yes"}},
		Data: map[string]string{resource.TemplateKey: "cpus: 9\n"},
	}
	gone := newVM("dev", false)
	gone.Metadata.UID = "uid-of-a-vm-long-gone"
	controller.Own(stale, gone)
	if _, err := e.st.Create(t.Context(), stale); err != nil {
		t.Fatal(err)
	}

	e.start()
	key := e.createVM("dev", true)
	v := e.running(key)
	cm, err := e.getCopy("dev")
	if err != nil {
		t.Fatal(err)
	}
	if ref, _ := cm.Metadata.OwnerOfKind(resource.KindVM.Name); ref.UID != v.Metadata.UID || len(cm.Metadata.OwnerReferences) != 1 {
		t.Errorf("the copy is owned by %+v, want the new VM alone", cm.Metadata.OwnerReferences)
	}
	if cm.Data[resource.TemplateKey] != debianTemplate || cm.Metadata.Labels["kept"] != "yes" || cm.Metadata.Labels[resource.LabelVM] != "dev" {
		t.Errorf("the copy holds %q with labels %v: want the VM's template, the labels merged", cm.Data[resource.TemplateKey], cm.Metadata.Labels)
	}
}
