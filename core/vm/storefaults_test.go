package vm_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/vm/vmtest"
)

func runningReason(reason string) func(*resource.VM) bool {
	return func(v *resource.VM) bool {
		c := meta.FindStatusCondition(v.Status.Conditions, resource.VMRunning)
		return c != nil && c.Reason == reason
	}
}

// Every store call a reconcile makes can fail: the error is returned and
// the work retried (never swallowed), and the VM goes through its whole
// life all the same.
func TestStoreFailuresAreRetried(t *testing.T) {
	t.Parallel()
	vmKind, cmKind := resource.KindVM.Name, resource.KindConfigMap.Name
	for _, tc := range []struct {
		name  string
		op    string
		match func(resource.Key, resource.Object, []byte) bool
	}{
		{"read the VM", "Get", onKind(vmKind)},
		{"read the copy", "Get", onKind(cmKind)},
		{"read the template", "Get", func(k resource.Key, _ resource.Object, _ []byte) bool { return k.Name == "debian" }},
		{"add the finalizer", "Update", onKind(vmKind)},
		{"make the copy", "Create", onKind(cmKind)},
		{"remake the copy", "Update", func(k resource.Key, obj resource.Object, _ []byte) bool {
			return k.Kind == cmKind && obj.(*resource.ConfigMap).Data[resource.TemplateKey] != debianTemplate
		}},
		{"record the machine", "UpdateStatus", onVMStatus(func(v *resource.VM) bool { return v.Status.TemplateConfigMap != "" && v.Status.RestartCount == 0 })},
		{"record Created", "UpdateStatus", onVMStatus(func(v *resource.VM) bool {
			return meta.IsStatusConditionTrue(v.Status.Conditions, resource.VMCreated) && v.Status.RestartCount > 0
		})},
		{"record Starting", "UpdateStatus", onVMStatus(runningReason(resource.ReasonStarting))},
		{"record Started", "UpdateStatus", onVMStatus(runningReason(resource.ReasonColdBoot))},
		{"record Reconciling", "UpdateStatus", onVMStatus(runningReason(resource.ReasonReconciling))},
		{"record the new template", "UpdateStatus", onVMStatus(func(v *resource.VM) bool {
			return runningReason(resource.ReasonReconciling)(v) && !v.Status.RestartNeeded
		})},
		{"record Stopped", "UpdateStatus", onVMStatus(runningReason(resource.ReasonStopped))},
		{"record the reset", "UpdateStatus", onVMStatus(func(v *resource.VM) bool {
			c := meta.FindStatusCondition(v.Status.Conditions, resource.VMCreated)
			return c != nil && c.Reason == resource.ReasonPending
		})},
		{"serve the restart", "Patch", onPatch(`restartRequested":null`)},
		{"serve the reset", "Patch", onPatch(`resetRequested":null`)},
		{"delete the copy", "Delete", onKind(cmKind)},
		{"release the copy", "Update", onTerminating(cmKind)},
		{"remove the finalizer", "Update", onTerminating(vmKind)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			faulty := &faultyStore{Store: e.st}
			e.ctrlStore = faulty
			faulty.fail(tc.op, tc.match)
			e.start()
			key := e.createVM("dev", true)
			e.running(key)

			e.patch(key, map[string]any{"spec": map[string]any{"params": map[string]any{"cpus": 2}}})
			e.waitFor(key, "restarted with the new template", func(v *resource.VM) bool {
				return v.Status.RestartCount == 2 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
			})
			e.annotate(key, resource.AnnotationRestartRequested)
			e.waitFor(key, "restarted on request", func(v *resource.VM) bool {
				return v.Status.RestartCount == 3 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
			})
			e.annotate(key, resource.AnnotationResetRequested)
			e.waitFor(key, "made anew", func(v *resource.VM) bool {
				_, asked := v.Metadata.Annotations[resource.AnnotationResetRequested]
				return !asked && v.Status.RestartCount == 4 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
			})
			e.setRunning(key, false)
			e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
			e.delete(key)
			e.waitGone(key)
			if !faulty.firedAll() {
				t.Fatal("the fault never fired: the test does not test what it says")
			}
			if inst, _ := e.fd.Machine("dev"); inst.Exists {
				t.Errorf("the machine is left: %+v", inst)
			}
		})
	}
}

// The restart request that retries a failed start is served (and removed)
// only once the new start is under way; a failure to remove it is retried.
func TestRestartOfAFailedStartSurvivesAStoreFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	e.fd.Fail(vmtest.Start, "dev", errors.New("qemu: cannot open the disk"))
	e.start()
	key := e.createVM("dev", true)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStartFailed)

	faulty.fail("Patch", onPatch(`restartRequested":null`))
	e.annotate(key, resource.AnnotationRestartRequested)
	v := e.running(key)
	if _, asked := v.Metadata.Annotations[resource.AnnotationRestartRequested]; asked || !faulty.firedAll() {
		t.Errorf("request still there: %v; fault fired: %v", asked, faulty.firedAll())
	}
	if n := e.fd.Count(vmtest.Start, "dev"); n != 2 {
		t.Errorf("started %d times, want 2", n)
	}
}

// A reset asked of a VM that has no machine yet is served by making one;
// a failure to remove the request is retried.
func TestResetBeforeTheMachineSurvivesAStoreFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	faulty.fail("Patch", onPatch(`resetRequested":null`))
	e.start()
	e.createTemplate("debian", debianTemplate)
	fresh := newVM("fresh", false)
	fresh.Metadata.Annotations = map[string]string{resource.AnnotationResetRequested: "true"}
	obj, err := e.st.Create(t.Context(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	e.waitFor(resource.KeyOf(obj), "created without the request", func(v *resource.VM) bool {
		_, asked := v.Metadata.Annotations[resource.AnnotationResetRequested]
		return !asked && hasCond(v, resource.VMCreated, true, resource.ReasonCreated)
	})
	if !faulty.firedAll() {
		t.Error("the fault never fired")
	}
	if n := e.fd.Count(vmtest.Create, "fresh"); n != 1 {
		t.Errorf("Create called %d times, want once", n)
	}
}

// Reading the template copy after letting it go, the last step before a
// deleted VM goes, can fail: it is retried, and the VM goes with its
// machine and its copy.
func TestDeleteSurvivesAFailedReadOfTheCopy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	e.start()
	key := e.createVM("dev", false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)

	// The copy is read while it is gone only once the VM let it go.
	faulty.fail("Get", func(k resource.Key, _ resource.Object, _ []byte) bool {
		_, err := e.st.Get(context.Background(), k)
		return k == copyKey("dev") && resource.IsNotFound(err)
	})
	e.delete(key)
	e.waitGone(key)
	if !faulty.firedAll() {
		t.Fatal("the fault never fired: the test does not test what it says")
	}
	if inst, _ := e.fd.Machine("dev"); inst.Exists {
		t.Errorf("the machine is left: %+v", inst)
	}
	if _, err := e.getCopy("dev"); !resource.IsNotFound(err) {
		t.Errorf("the template copy is left: %v", err)
	}
}

// Letting go of a copy an earlier VM of the same name left while it was
// being deleted can fail: it is retried, and the copy made anew once gone.
func TestReleaseOfALeftoverCopySurvivesAStoreFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	faulty.fail("Update", onTerminating(resource.KindConfigMap.Name))
	e.leaveTerminatingCopy("dev")
	e.start()
	e.copyMadeAnew(e.createVM("dev", true))
	if !faulty.firedAll() {
		t.Fatal("the fault never fired: the test does not test what it says")
	}
}

// A VM deleted and created anew under the same name while a reconcile of
// the old one is under way gets nothing of the old one's: the status the
// old pass meant to write is not written, and the machine the old pass
// made, never recorded, is removed and made anew for the new VM.
func TestVMReplacedDuringAReconcile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	e.createTemplate("debian", debianTemplate)
	e.start()
	// The first read of the VM between making its machine and recording it
	// is the one that writes the old VM's status.
	faulty.meanwhile("Get", func(k resource.Key, _ resource.Object, _ []byte) bool {
		pending, _ := e.fd.Uncommitted()
		return k.Kind == resource.KindVM.Name && slices.Contains(pending, "dev")
	}, func() {
		old := resource.Key{Kind: resource.KindVM.Name, Namespace: "default", Name: "dev"}
		if err := controller.RemoveFinalizer(context.Background(), e.st, old, resource.FinalizerCleanup); err != nil {
			t.Error(err)
		}
		if _, err := e.st.Delete(context.Background(), old, store.DeleteOptions{}); err != nil {
			t.Error(err)
		}
		if _, err := e.st.Create(context.Background(), newVM("dev", true)); err != nil {
			t.Error(err)
		}
	})
	obj, err := e.st.Create(t.Context(), newVM("dev", true))
	if err != nil {
		t.Fatal(err)
	}
	first := obj.(*resource.VM)

	v := e.running(resource.KeyOf(first))
	if !faulty.firedAll() {
		t.Fatal("the VM was never replaced: the test does not test what it says")
	}
	if v.Metadata.UID == first.Metadata.UID {
		t.Fatalf("the VM running is the old one: %s", describe(v))
	}
	if c, d := e.fd.Count(vmtest.Create, "dev"), e.fd.Count(vmtest.Delete, "dev"); c != 2 || d != 1 {
		t.Errorf("Create called %d times and Delete %d, want the old VM's machine removed and made anew", c, d)
	}
}
