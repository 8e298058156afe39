package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// setRunning writes the VM's Running condition as a controller would, with
// the observedGeneration given.
func setRunning(t *testing.T, cl *client.Client, name string, status metav1.ConditionStatus, reason string, observed int64) {
	t.Helper()
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":%q,"reason":%q,"message":"set by the test","observedGeneration":%d,"lastTransitionTime":%q}]}}`,
		resource.VMRunning, status, reason, observed, time.Now().UTC().Format(time.RFC3339))
	if _, err := cl.PatchStatus(context.Background(), resource.KindVM, "", name, []byte(patch)); err != nil {
		t.Fatal(err)
	}
}

// bumpGeneration changes the VM's spec, so its generation goes up.
func bumpGeneration(t *testing.T, cl *client.Client, name string, running bool) int64 {
	t.Helper()
	obj, err := cl.Patch(context.Background(), resource.KindVM, "", name, []byte(fmt.Sprintf(`{"spec":{"running":%t}}`, running)))
	if err != nil {
		t.Fatal(err)
	}
	return obj.GetMeta().Generation
}

var untilRunning = client.UntilCondition(resource.VMRunning, metav1.ConditionTrue)

// The one rule: a condition of an older generation is stale, one of the
// current generation counts, and one without a generation (0) counts.
func TestWaitCountsOnlyAConditionOfTheCurrentGeneration(t *testing.T) {
	_, cl := newDaemon(t, 0)
	ctx := context.Background()
	mustCreate(t, cl, "dev")
	setRunning(t, cl, "dev", metav1.ConditionTrue, resource.ReasonStarted, 1)
	gen := bumpGeneration(t, cl, "dev", true) // Running=True is now of generation 1 of 2

	_, err := cl.Wait(ctx, resource.KindVM, "", "dev", untilRunning, 300*time.Millisecond)
	if resource.ReasonOf(err) != resource.ReasonTimeout || !strings.Contains(err.Error(), "(for an older generation)") {
		t.Fatalf("a stale condition ended the wait: %v", err)
	}

	// The wait is open when the controller catches up.
	go func() {
		time.Sleep(100 * time.Millisecond)
		setRunning(t, cl, "dev", metav1.ConditionTrue, resource.ReasonStarted, gen)
	}()
	obj, err := errAfter(t, 10*time.Second, func() (resource.Object, error) {
		return cl.Wait(ctx, resource.KindVM, "", "dev", untilRunning, 0)
	})
	if err != nil || obj.(*resource.VM).Status.Conditions[0].ObservedGeneration != gen {
		t.Fatalf("Wait = %v, %v; want the VM with Running of generation %d", obj, err, gen)
	}

	// Unstamped (0): counts, whatever the generation.
	bumpGeneration(t, cl, "dev", false)
	setRunning(t, cl, "dev", metav1.ConditionFalse, resource.ReasonStopped, 0)
	if _, err := cl.Wait(ctx, resource.KindVM, "", "dev", client.UntilCondition(resource.VMRunning, metav1.ConditionFalse, resource.ReasonStopped), time.Second); err != nil {
		t.Fatalf("a condition without observedGeneration did not count: %v", err)
	}
}

func TestWaitTimesOutSayingWhatItLastSaw(t *testing.T) {
	_, cl := newDaemon(t, 0)
	mustCreate(t, cl, "dev")
	setRunning(t, cl, "dev", metav1.ConditionFalse, resource.ReasonStarting, 1)
	_, err := cl.Wait(context.Background(), resource.KindVM, "", "dev", untilRunning, 200*time.Millisecond)
	want := "timed out after 200ms waiting for vm/dev (Running=True); last seen: Running=False reason Starting: set by the test"
	if resource.ReasonOf(err) != resource.ReasonTimeout || err.Error() != want {
		t.Fatalf("Wait = %v;\nwant %s", err, want)
	}
	// Ending the caller's context is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cl.Wait(ctx, resource.KindVM, "", "dev", untilRunning, time.Minute); err != context.Canceled {
		t.Fatalf("Wait with an ended context = %v", err)
	}
}

// An object that does not exist yet is waited for; deletion is waited for
// until the object is gone, at once when it never existed.
func TestWaitForAnObjectToComeAndGo(t *testing.T) {
	_, cl := newDaemon(t, 0)
	ctx := context.Background()
	if obj, err := cl.Wait(ctx, resource.KindVM, "", "never", client.UntilGone(), time.Second); err != nil || obj != nil {
		t.Fatalf("waiting for a missing object to go: %v, %v", obj, err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		mustCreate(t, cl, "late")
		setRunning(t, cl, "late", metav1.ConditionTrue, resource.ReasonStarted, 1)
	}()
	if _, err := errAfter(t, 10*time.Second, func() (resource.Object, error) {
		return cl.Wait(ctx, resource.KindVM, "", "late", untilRunning, 0)
	}); err != nil {
		t.Fatalf("waiting for an object created later: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		if _, err := cl.Delete(ctx, resource.KindVM, "", "late"); err != nil {
			t.Error(err)
		}
	}()
	if _, err := errAfter(t, 10*time.Second, func() (resource.Object, error) {
		return cl.Wait(ctx, resource.KindVM, "", "late", client.UntilGone(), 0)
	}); err != nil {
		t.Fatalf("waiting for deletion: %v", err)
	}
}

// Following a VM's boot ends with the failure its conditions report.
func TestWaitVMEndsWithAFailedStart(t *testing.T) {
	_, cl := newDaemon(t, 0)
	mustCreate(t, cl, "dev")
	setRunning(t, cl, "dev", metav1.ConditionFalse, resource.ReasonStartFailed, 1)
	_, err := cl.WaitVM(context.Background(), "", "dev", resource.VMRunning, time.Second)
	if err == nil || err.Error() != "vm dev: StartFailed: set by the test" {
		t.Fatalf("WaitVM = %v, want the failed start", err)
	}
	// A failure of an older generation is history, not the answer.
	gen := bumpGeneration(t, cl, "dev", true)
	go func() {
		time.Sleep(100 * time.Millisecond)
		setRunning(t, cl, "dev", metav1.ConditionTrue, resource.ReasonStarted, gen)
	}()
	vm, err := errAfter(t, 10*time.Second, func() (*resource.VM, error) {
		return cl.WaitVM(context.Background(), "", "dev", resource.VMRunning, 0)
	})
	if err != nil || vm.Metadata.Generation != gen {
		t.Fatalf("WaitVM after a new start = %v, %v", vm, err)
	}
}

// The server's ?wait= follows the same rule as the client's wait: an
// unstamped condition of the action's reason ends it.
func TestServerWaitFollowsTheSameRule(t *testing.T) {
	_, cl := newDaemon(t, 0)
	mustCreate(t, cl, "dev")
	setRunning(t, cl, "dev", metav1.ConditionTrue, resource.ReasonStarted, 1)
	// start bumps the generation: Running of generation 1 is stale then.
	_, err := cl.VMAction(context.Background(), "", "dev", "start", client.WaitAtMost(300*time.Millisecond))
	if resource.ReasonOf(err) != resource.ReasonTimeout {
		t.Fatalf("the server's wait ended on a stale condition: %v", err)
	}
	bumpGeneration(t, cl, "dev", false)
	go func() {
		time.Sleep(200 * time.Millisecond)
		setRunning(t, cl, "dev", metav1.ConditionTrue, resource.ReasonStarted, 0)
	}()
	vm, err := errAfter(t, 10*time.Second, func() (*resource.VM, error) {
		return cl.VMAction(context.Background(), "", "dev", "start", client.WaitAtMost(0))
	})
	if err != nil || !vm.Spec.Running {
		t.Fatalf("start?wait=true = %v, %v", vm, err)
	}
}
