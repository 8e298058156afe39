package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm/vmtest"
)

// A start of a suspended App wakes it: its VM resumes (boots, with
// cold=true), and the start waits until the engine answers. A stop of a suspended App leaves it
// stopped.
func TestStartWakesASuspendedApp(t *testing.T) {
	d := vmtest.NewSavingDriver()
	st, h := serveControllers(t, d)
	ctx := t.Context()

	suspend := func() {
		t.Helper()
		code, a, body := post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=30s")
		if code != http.StatusOK {
			t.Fatalf("start: %d %s", code, body)
		}
		// As the App's controller suspends an idle App.
		key := resource.KeyOf(a)
		if _, err := st.Patch(ctx, key, fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, resource.AnnotationSuspended, strconv.FormatInt(a.Metadata.Generation, 10))); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			obj, err := st.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if c := meta.FindStatusCondition(obj.(*resource.App).Status.Conditions, resource.AppSettled); c != nil && c.Reason == resource.ReasonSuspended {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the App was not suspended: %+v", obj.(*resource.App).Status.Conditions)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	suspend()
	code, a, body := post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=30s")
	settled, running := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled), meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)
	if code != http.StatusOK || settled == nil || settled.Status != "True" || settled.Reason != resource.ReasonRunning || running.Reason != resource.ReasonResumed {
		t.Fatalf("a start of a suspended App: %d %s", code, body)
	}
	if _, ok := a.Metadata.Annotations[resource.AnnotationSuspended]; ok {
		t.Fatalf("the woken App is still marked suspended: %v", a.Metadata.Annotations)
	}

	// A cold start of a suspended App boots it.
	suspend()
	code, a, body = post(t, h, "/api/v1alpha1/app/start?wait=true&timeout=30s&cold=true")
	settled, running = meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled), meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)
	if code != http.StatusOK || !a.Spec.Cold || settled == nil || settled.Reason != resource.ReasonRunning || running.Reason != resource.ReasonColdBoot {
		t.Fatalf("a cold start of a suspended App: %d %s", code, body)
	}

	suspend()
	discards := d.Count(vmtest.Discard, resource.AppVMName)
	code, a, body = post(t, h, "/api/v1alpha1/app/stop?wait=true&timeout=30s")
	if c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); code != http.StatusOK || c == nil || c.Reason != resource.ReasonStopped || a.Spec.Running {
		t.Fatalf("a stop of a suspended App: %d %s", code, body)
	}
	if n := d.Count(vmtest.Discard, resource.AppVMName) - discards; n != 0 {
		t.Fatalf("a stop of a suspended App dropped its saved state (%d discards)", n)
	}
}
