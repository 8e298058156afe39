package vm_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/vm/vmtest"
)

func TestResetMakesTheMachineAnew(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	key := e.createVM("dev", true)
	e.running(key)

	e.fd.Fail(vmtest.Delete, "dev", errors.New("device or resource busy")) // retried
	e.annotate(key, resource.AnnotationResetRequested)
	v := e.waitFor(key, "running after the reset", func(v *resource.VM) bool {
		_, asked := v.Metadata.Annotations[resource.AnnotationResetRequested]
		return !asked && v.Status.RestartCount == 2 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	if got, want := ops(e.fd.Calls("dev")), []vmtest.Op{vmtest.Create, vmtest.Commit, vmtest.Start,
		vmtest.Delete, vmtest.Delete, vmtest.Create, vmtest.Commit, vmtest.Start}; !slices.Equal(got, want) {
		t.Errorf("driver calls %v, want %v; status %s", got, want, describe(v))
	}
	if e.everHad(key, resource.VMCreated, false, resource.ReasonPending) == nil {
		t.Error("Created never said the machine is made anew")
	}

	// A reset asked before there is a machine is served by making it.
	fresh := newVM("fresh", false)
	fresh.Metadata.Annotations = map[string]string{resource.AnnotationResetRequested: "true"}
	obj, err := e.st.Create(t.Context(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	// Created is recorded before the machine is committed: wait for both.
	want := []vmtest.Op{vmtest.Create, vmtest.Commit}
	e.waitFor(resource.KeyOf(obj), fmt.Sprintf("created without the request, with driver calls %v", want), func(v *resource.VM) bool {
		_, asked := v.Metadata.Annotations[resource.AnnotationResetRequested]
		return !asked && hasCond(v, resource.VMCreated, true, resource.ReasonCreated) && slices.Equal(ops(e.fd.Calls("fresh")), want)
	})
}

// A daemon that crashed between making a machine and recording it finds
// the machine uncommitted: before the record, it is removed and made
// again; after, it is committed.
func TestMachineLeftByACrashDuringCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.fd.Create(t.Context(), "early", []byte(debianTemplate)); err != nil {
		t.Fatal(err)
	}
	early := e.createVM("early", false)

	// The commit after the record fails, as a crash right before it would
	// leave the machine.
	e.fd.Fail(vmtest.Commit, "late", errors.New("killed"))
	late := e.createVM("late", false)

	e.start()
	e.waitCond(early, resource.VMRunning, false, resource.ReasonStopped)
	e.waitCond(late, resource.VMRunning, false, resource.ReasonStopped)
	if got, want := ops(e.fd.Calls("early")), []vmtest.Op{vmtest.Create, vmtest.Delete, vmtest.Create, vmtest.Commit}; !slices.Equal(got, want) {
		t.Errorf("unrecorded machine: driver calls %v, want %v", got, want)
	}
	if got, want := ops(e.fd.Calls("late")), []vmtest.Op{vmtest.Create, vmtest.Commit, vmtest.Commit}; !slices.Equal(got, want) {
		t.Errorf("recorded machine: driver calls %v, want %v", got, want)
	}
}

func TestCreateThatFailsIsReportedAndRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fd.Fail(vmtest.Create, "dev", errors.New("no space left on device"))
	e.start()
	key := e.createVM("dev", true)

	e.running(key)
	v := e.everHad(key, resource.VMCreated, false, resource.ReasonCreateFailed)
	if v == nil || cond(v, resource.VMCreated).Message != "no space left on device" {
		t.Errorf("the failed create was never reported with the driver's error")
	}
	if n := e.fd.Count(vmtest.Create, "dev"); n != 2 {
		t.Errorf("Create called %d times, want 2", n)
	}
}

// A VM whose template is gone before its copy was made cannot be made:
// that is recorded, and tried again once the template is there.
func TestTemplateGoneBeforeTheCopyIsCreateFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.createVM("dev", true)
	tkey := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"}
	if _, err := e.st.Delete(t.Context(), tkey, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.start()
	v := e.waitCond(key, resource.VMCreated, false, resource.ReasonCreateFailed)
	if msg := cond(v, resource.VMCreated).Message; !strings.Contains(msg, `configmap "debian" does not exist`) {
		t.Errorf("CreateFailed says %q, want the missing template named", msg)
	}

	e.createTemplate("debian", debianTemplate)
	e.running(key)
}

// A template's arrival is not lost when the VMs it concerns cannot be
// looked up at that moment: the change is delivered again, and the VM that
// waited for the template goes on.
func TestTemplateArrivalSurvivesAFailedLookup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	faulty := &faultyStore{Store: e.st}
	e.ctrlStore = faulty
	key := e.createVM("dev", true)
	tkey := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"}
	if _, err := e.st.Delete(t.Context(), tkey, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.waitCond(key, resource.VMCreated, false, resource.ReasonCreateFailed)

	faulty.fail("List", onKind(resource.KindVM.Name))
	e.createTemplate("debian", debianTemplate)
	e.running(key)
	if !faulty.firedAll() {
		t.Error("the lookup of the template's VMs never failed")
	}
}

// A VM keeps its own copy of its template: deleting the template it was
// made from changes nothing for it.
func TestTemplateDeletedLaterKeepsTheCopy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	key := e.createVM("dev", true)
	e.running(key)

	tkey := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"}
	if _, err := e.st.Delete(t.Context(), tkey, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.annotate(key, "unrelated.example/touch")
	e.annotate(key, resource.AnnotationRestartRequested)
	v := e.waitFor(key, "restarted", func(v *resource.VM) bool {
		return v.Status.RestartCount == 2 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	if v.Status.RestartNeeded || e.fd.Count(vmtest.Reconfigure, "dev") != 0 {
		t.Errorf("the VM's copy changed after its template was deleted: %s", describe(v))
	}
}

func TestDriverPanicsAreSurvived(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fd.Panic(vmtest.Inspect, "dev", "driver bug in Inspect")
	e.start()
	key := e.createVM("dev", true)
	e.running(key)
	if n := e.ctrl.Panics(); n != 1 {
		t.Errorf("Panics() = %d, want 1", n)
	}

	// A panic while following a boot fails that start, with a reason.
	e.setRunning(key, false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)
	e.fd.Panic(vmtest.WaitRunning, "dev", "driver bug in WaitRunning")
	e.setRunning(key, true)
	v := e.waitCond(key, resource.VMRunning, false, resource.ReasonStartFailed)
	if msg := cond(v, resource.VMRunning).Message; !strings.Contains(msg, "daemon's log") {
		t.Errorf("StartFailed says %q", msg)
	}
	if n := e.ctrl.Panics(); n != 2 {
		t.Errorf("Panics() = %d, want 2", n)
	}
}

func TestDriverErrorsAreRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fd.Fail(vmtest.Inspect, "dev", errors.New("cannot read the instance directory"))
	e.fd.Fail(vmtest.Uncommitted, "dev", errors.New("cannot list the instances"))
	e.start()
	key := e.createVM("dev", false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)

	e.fd.Fail(vmtest.Reconfigure, "dev", errors.New("disk busy"))
	e.patch(key, map[string]any{"spec": map[string]any{"params": map[string]any{"cpus": 2}}})
	e.waitFor(key, "reconfigured", func(v *resource.VM) bool { return e.fd.Count(vmtest.Reconfigure, "dev") == 2 })

	// A start after a template change reconfigures first; a failure
	// there is retried too.
	e.patch(key, map[string]any{"spec": map[string]any{"params": map[string]any{"cpus": 1}, "running": true}})
	e.fd.Fail(vmtest.Reconfigure, "dev", errors.New("disk busy"))
	e.running(key)
	if n := e.fd.Count(vmtest.Reconfigure, "dev"); n < 3 {
		t.Errorf("Reconfigure called %d times, want the new template applied", n)
	}
}

// A template deleted and created anew under the same name is one the VM
// takes: when it cannot be rendered with the VM's params, that is recorded
// and the VM's copy and machine are kept; once it is mended, the VM takes
// it and restarts.
func TestTemplateRecreatedBrokenIsCreateFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createTemplate("debian", debianTemplate)
	withParams := newVM("dev", true)
	withParams.Spec.Params = map[string]any{"cpus": 2}
	obj, err := e.st.Create(t.Context(), withParams)
	if err != nil {
		t.Fatal(err)
	}
	key := resource.KeyOf(obj)
	e.start()
	e.running(key)
	before, err := e.getCopy("dev")
	if err != nil {
		t.Fatal(err)
	}

	tkey := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"}
	if _, err := e.st.Delete(t.Context(), tkey, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	broken := e.createTemplate("debian", "images: [unclosed\n")
	v := e.waitCond(key, resource.VMCreated, false, resource.ReasonCreateFailed)
	if msg := cond(v, resource.VMCreated).Message; !strings.Contains(msg, "not YAML") {
		t.Errorf("CreateFailed says %q, want the template's fault named", msg)
	}
	if inst, _ := e.fd.Machine("dev"); !inst.Running {
		t.Errorf("the machine stopped over a broken template: %+v", inst)
	}
	if cm, err := e.getCopy("dev"); err != nil || cm.Data[resource.TemplateKey] != before.Data[resource.TemplateKey] {
		t.Errorf("the VM's copy changed: %v, %v", cm, err)
	}

	broken.Data[resource.TemplateKey] = debianTemplate
	if _, err := e.st.Update(t.Context(), broken); err != nil {
		t.Fatal(err)
	}
	e.waitFor(key, "restarted with the mended template", func(v *resource.VM) bool {
		return v.Status.RestartCount == 2 && hasCond(v, resource.VMCreated, true, resource.ReasonCreated) &&
			hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
}
