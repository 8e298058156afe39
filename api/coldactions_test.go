package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// postVM posts a VM action and returns the answer's code, the VM and the
// body.
func postVM(t *testing.T, h http.Handler, path string) (int, *resource.VM, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, nil))
	vm := &resource.VM{}
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), vm); err != nil {
			t.Fatal(err)
		}
	}
	return rec.Code, vm, rec.Body.String()
}

// newVM stores a VM default/dev with spec, and returns it as stored.
func newVM(t *testing.T, st store.Store, spec resource.VMSpec) *resource.VM {
	t.Helper()
	obj, err := st.Create(context.Background(), &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "dev", Namespace: "default"}, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*resource.VM)
}

// setRunning writes the VM's Running condition, current for its
// generation.
func setRunning(t *testing.T, st store.Store, vm *resource.VM, status metav1.ConditionStatus, reason, msg string) *resource.VM {
	t.Helper()
	obj, err := st.Get(context.Background(), resource.KeyOf(vm))
	if err != nil {
		t.Fatal(err)
	}
	vm = obj.(*resource.VM)
	vm.Status.Conditions = []metav1.Condition{{Type: resource.VMRunning, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: vm.Metadata.Generation, LastTransitionTime: metav1.Now()}}
	obj, err = st.UpdateStatus(context.Background(), vm)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*resource.VM)
}

// 'vm start' and 'vm stop' set spec.cold as ?cold= says, false when it
// is absent: a plain stop saves the VM's state and a plain start resumes
// it, whatever an earlier --cold asked.
func TestVMStartAndStopSetCold(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()
	newVM(t, st, resource.VMSpec{TemplateRef: "plain"})
	const vms = "/api/v1alpha1/namespaces/default/vms/dev/"

	for _, step := range []struct {
		action        string
		running, cold bool
	}{
		{"start?cold=true", true, true},
		{"stop", false, false},
		{"start", true, false},
		{"stop?cold=true", false, true},
		{"start?cold=false", true, false},
	} {
		code, vm, body := postVM(t, h, vms+step.action)
		if code != http.StatusOK || vm.Spec.Running != step.running || vm.Spec.Cold != step.cold {
			t.Fatalf("%s: %d %s; want spec.running %t, spec.cold %t", step.action, code, body, step.running, step.cold)
		}
	}
	if code, _, body := postVM(t, h, vms+"start?cold=soon"); code != http.StatusUnprocessableEntity && code != http.StatusBadRequest {
		t.Errorf("cold=soon: %d %s; want it refused", code, body)
	}
	// restart and reset take no cold: one given is not read.
	code, vm, body := postVM(t, h, vms+"restart?cold=true")
	if code != http.StatusOK || vm.Spec.Cold {
		t.Errorf("restart?cold=true: %d %s; want spec.cold unchanged", code, body)
	}
}

// Starting a VM whose start failed asks for a restart, and sets spec.cold
// as asked on the way.
func TestVMStartRetryingAFailedStartSetsCold(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()
	vm := newVM(t, st, resource.VMSpec{TemplateRef: "plain", Running: true})
	setRunning(t, st, vm, metav1.ConditionFalse, resource.ReasonStartFailed, "no memory")

	code, got, body := postVM(t, h, "/api/v1alpha1/namespaces/default/vms/dev/start?cold=true")
	if _, asked := got.Metadata.Annotations[resource.AnnotationRestartRequested]; code != http.StatusOK || !asked || !got.Spec.Cold {
		t.Fatalf("start of a failed VM: %d %s; want a restart asked for and spec.cold true", code, body)
	}
}

// A waiting start ends once the VM runs, however it started: resumed,
// booted cold, or Started as earlier versions said; a reset of a running
// VM likewise.
func TestStartWaitEndsOnEveryWayOfStarting(t *testing.T) {
	for _, reason := range resource.VMStartedReasons {
		t.Run(reason, func(t *testing.T) {
			st := openStore(t)
			h := api.New(api.Config{Store: st}).Handler()
			vm := newVM(t, st, resource.VMSpec{TemplateRef: "plain", Running: true, Cold: true})
			// start?cold=true changes nothing: the condition stays current.
			setRunning(t, st, vm, metav1.ConditionTrue, reason, "the VM runs")
			code, got, body := postVM(t, h, "/api/v1alpha1/namespaces/default/vms/dev/start?cold=true&wait=true&timeout=5s")
			if code != http.StatusOK || got.Status.Conditions[0].Reason != reason {
				t.Fatalf("start with Running=True (%s): %d %s", reason, code, body)
			}

			// A reset is waited for until its annotation is taken and the VM
			// runs again.
			ch := make(chan string, 1)
			go func() {
				code, got, body := postVM(t, h, "/api/v1alpha1/namespaces/default/vms/dev/reset?wait=true&timeout=10s")
				if code != http.StatusOK || got.Status.Conditions[0].Reason != reason {
					ch <- body
				}
				close(ch)
			}()
			for vm = nil; vm == nil || vm.Metadata.Annotations[resource.AnnotationResetRequested] == ""; time.Sleep(10 * time.Millisecond) {
				obj, err := st.Get(context.Background(), resource.KeyOf(got))
				if err != nil {
					t.Fatal(err)
				}
				vm = obj.(*resource.VM)
			}
			delete(vm.Metadata.Annotations, resource.AnnotationResetRequested)
			vm.Metadata.ResourceVersion = ""
			if _, err := st.Update(context.Background(), vm); err != nil {
				t.Fatal(err)
			}
			if body, failed := <-ch; failed {
				t.Fatalf("reset with Running=True (%s): %s", reason, body)
			}
		})
	}
}

// The App's start and stop set its spec.cold as ?cold= says, false when
// it is absent; a start of a running App with another cold sets it alone.
func TestAppStartAndStopSetCold(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()

	for _, step := range []struct {
		action        string
		running, cold bool
	}{
		{"start?cold=true", true, true}, // creates the App
		{"start", true, false},
		{"stop?cold=true", false, true},
		{"stop", false, false},
		{"start?cold=true", true, true},
	} {
		code, a, body := post(t, h, "/api/v1alpha1/app/"+step.action)
		if code != http.StatusOK || a.Spec.Running != step.running || a.Spec.Cold != step.cold {
			t.Fatalf("%s: %d %s; want spec.running %t, spec.cold %t", step.action, code, body, step.running, step.cold)
		}
	}
}

// A restart of a stopped VM is refused, saying to start it, and changes
// nothing: it was taken, dropped by the controller and answered
// "restarted" while the VM stayed stopped.
func TestVMRestartOfAStoppedVMIsRefused(t *testing.T) {
	st := openStore(t)
	h := api.New(api.Config{Store: st}).Handler()
	before := newVM(t, st, resource.VMSpec{TemplateRef: "plain"})
	code, _, body := postVM(t, h, "/api/v1alpha1/namespaces/default/vms/dev/restart?wait=true&timeout=5s")
	if code != http.StatusConflict || !strings.Contains(body, "vm dev is stopped") || !strings.Contains(body, "paddock vm start dev") {
		t.Fatalf("restart of a stopped VM: %d %s; want 409 saying to start it", code, body)
	}
	obj, err := st.Get(context.Background(), resource.KeyOf(before))
	if err != nil {
		t.Fatal(err)
	}
	if now := obj.(*resource.VM); now.Metadata.ResourceVersion != before.Metadata.ResourceVersion {
		t.Fatalf("the refused restart changed the VM: %+v", now.Metadata)
	}
}
