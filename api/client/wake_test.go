package client_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// A start wakes a suspended App without changing its spec, so its Settled
// (True, Suspended) stays current until the controller takes the wake:
// WaitApp, and wire.AppDone, wait on until Settled speaks of the wake.
func TestWaitAppWaitsForAWokenAppToRun(t *testing.T) {
	_, cl := newDaemon(t, 0)
	ctx := context.Background()
	a, err := cl.PatchApp(ctx, []byte(`{"spec":{"running":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	settled := func(reason string) {
		t.Helper()
		patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True","reason":%q,"message":"set by the test","observedGeneration":%d,"lastTransitionTime":%q}]}}`,
			resource.AppSettled, reason, a.Metadata.Generation, time.Now().UTC().Format(time.RFC3339))
		if _, err := cl.PatchStatus(ctx, resource.KindApp, "", resource.AppName, []byte(patch)); err != nil {
			t.Fatal(err)
		}
	}
	// Suspended, as the App's controller does it.
	if a, err = cl.PatchApp(ctx, fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, resource.AnnotationSuspended, strconv.FormatInt(a.Metadata.Generation, 10))); err != nil {
		t.Fatal(err)
	}
	settled(resource.ReasonSuspended)
	if got, err := cl.WaitApp(ctx, time.Second); err != nil || !wire.AppDone(got) {
		t.Fatalf("a suspended App: WaitApp = %v; want it done", err)
	}

	// Woken: the annotation is gone, Settled not yet rewritten.
	if _, err := cl.PatchApp(ctx, fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, resource.AnnotationSuspended)); err != nil {
		t.Fatal(err)
	}
	obj, _ := cl.Get(ctx, resource.KindApp, "", resource.AppName)
	if woken := obj.(*resource.App); !wire.AppWaking(woken) || wire.AppDone(woken) {
		t.Fatalf("a woken App whose Settled still says Suspended: waking %v, done %v", wire.AppWaking(woken), wire.AppDone(woken))
	}
	if _, err := cl.WaitApp(ctx, 300*time.Millisecond); resource.ReasonOf(err) != resource.ReasonTimeout {
		t.Fatalf("WaitApp ended on the suspension's Settled: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		settled(resource.ReasonRunning)
	}()
	got, err := cl.WaitApp(ctx, 10*time.Second)
	if err != nil || meta.FindStatusCondition(got.Status.Conditions, resource.AppSettled).Reason != resource.ReasonRunning {
		t.Fatalf("WaitApp = %v, %v; want the App Settled Running", got, err)
	}
}
