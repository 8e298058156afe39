package app

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// TestSettledBranches walks every branch of Settled, including the short
// passages that the controller tests cannot hold still.
func TestSettledBranches(t *testing.T) {
	now := time.Now()
	vmWith := func(gen int64, created, running *metav1.Condition) *resource.VM {
		v := &resource.VM{Metadata: resource.ObjectMeta{Name: resource.AppVMName, Generation: gen}}
		for _, c := range []*metav1.Condition{created, running} {
			if c != nil {
				v.Status.Conditions = append(v.Status.Conditions, *c)
			}
		}
		return v
	}
	c := func(typ string, ok bool, reason string, gen int64) *metav1.Condition {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		return &metav1.Condition{Type: typ, Status: s, Reason: reason, Message: reason + " message", ObservedGeneration: gen}
	}
	created := c(resource.VMCreated, true, resource.ReasonCreated, 2)
	up := vmWith(2, created, c(resource.VMRunning, true, resource.ReasonStarted, 2))
	down := vmWith(2, created, c(resource.VMRunning, false, resource.ReasonStopped, 2))
	running := &resource.App{Spec: resource.AppSpec{Running: true, ContainerEngine: resource.ContainerEngine{Name: "moby"}}}
	stopped := &resource.App{Spec: resource.AppSpec{Running: false}}
	deleting := &resource.App{Metadata: resource.ObjectMeta{DeletionTimestamp: &now}}
	terminatingVM := vmWith(2, created, nil)
	terminatingVM.Metadata.DeletionTimestamp = &now
	answered := engineState{probed: true, ready: true}
	silent := engineState{probed: true, message: "connection refused"}

	cases := []struct {
		name    string
		app     *resource.App
		vm      *resource.VM
		fresh   bool
		engine  engineState
		blocked *blockedError
		ok      bool
		reason  string
	}{
		{"the App is deleted", deleting, up, true, answered, nil, false, resource.ReasonDeleting},
		{"blocked", running, nil, false, engineState{}, &blockedError{resource.ReasonTemplateFailed, errors.New("no image")}, false, resource.ReasonTemplateFailed},
		{"no VM yet", running, nil, false, engineState{}, nil, false, resource.ReasonCreating},
		{"the VM is deleted", running, terminatingVM, false, engineState{}, nil, false, resource.ReasonDeleting},
		{"create failed, forwarded", running, vmWith(2, c(resource.VMCreated, false, resource.ReasonCreateFailed, 2), nil), false, engineState{}, nil, false, resource.ReasonCreateFailed},
		{"start failed, forwarded", running, vmWith(2, created, c(resource.VMRunning, false, resource.ReasonStartFailed, 2)), true, engineState{}, nil, false, resource.ReasonStartFailed},
		{"stop failed, forwarded", stopped, vmWith(2, created, c(resource.VMRunning, false, resource.ReasonStopFailed, 2)), true, engineState{}, nil, false, resource.ReasonStopFailed},
		{"an old failure is not forwarded", running, vmWith(3, c(resource.VMCreated, true, resource.ReasonCreated, 3), c(resource.VMRunning, false, resource.ReasonStartFailed, 2)), true, engineState{}, nil, false, resource.ReasonReconciling},
		{"the spec just changed (a stop)", stopped, vmWith(3, created, c(resource.VMRunning, true, resource.ReasonStarted, 2)), true, engineState{}, nil, false, resource.ReasonReconciling},
		{"not created yet", running, vmWith(1, c(resource.VMCreated, false, resource.ReasonPending, 1), nil), false, engineState{}, nil, false, resource.ReasonPending},
		{"no Running yet", running, vmWith(2, created, nil), false, engineState{}, nil, false, resource.ReasonReconciling},
		{"Running for an older generation", running, vmWith(3, c(resource.VMCreated, true, resource.ReasonCreated, 3), c(resource.VMRunning, true, resource.ReasonStarted, 2)), true, answered, nil, false, resource.ReasonReconciling},
		{"stopped, to start", running, down, true, engineState{}, nil, false, resource.ReasonReconciling},
		{"starting", running, vmWith(2, created, c(resource.VMRunning, false, resource.ReasonStarting, 2)), true, engineState{}, nil, false, resource.ReasonStarting},
		{"an older template runs", running, up, false, answered, nil, false, resource.ReasonRestarting},
		{"the engine does not answer", running, up, true, silent, nil, false, resource.ReasonConnecting},
		{"running", running, up, true, answered, nil, true, resource.ReasonRunning},
		{"stopping", stopped, up, true, engineState{}, nil, false, resource.ReasonStopping},
		{"stopped", stopped, down, true, engineState{}, nil, true, resource.ReasonStopped},
	}
	for _, tc := range cases {
		ok, reason, msg := settled(tc.app, tc.vm, tc.fresh, tc.engine, tc.blocked)
		if ok != tc.ok || reason != tc.reason || msg == "" {
			t.Errorf("%s: Settled = %v %s %q; want %v %s with a message", tc.name, ok, reason, msg, tc.ok, tc.reason)
		}
	}
}

// TestEngineRetryIsShortWhileTheVMHasJustStarted: an engine that does not
// answer is asked again soon in the first seconds after its VM began to
// run, when it is starting too, and less often once it should have.
func TestEngineRetryIsShortWhileTheVMHasJustStarted(t *testing.T) {
	began := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	vm := &resource.VM{Metadata: resource.ObjectMeta{Name: resource.AppVMName, Generation: 2}}
	vm.Status.Conditions = []metav1.Condition{{Type: resource.VMRunning, Status: metav1.ConditionTrue, Reason: resource.ReasonStarted,
		ObservedGeneration: 2, LastTransitionTime: metav1.NewTime(began)}}
	for _, tc := range []struct {
		after time.Duration
		want  time.Duration
	}{
		{0, engineRetryStarting},
		{engineStarting - time.Second, engineRetryStarting},
		{engineStarting, engineRetry},
		{10 * time.Minute, engineRetry},
	} {
		if got := engineRetryAfter(vm, began.Add(tc.after)); got != tc.want {
			t.Errorf("%s after the VM began to run: asked again after %s, want %s", tc.after, got, tc.want)
		}
	}
	// Running for an older generation says nothing of this start.
	vm.Metadata.Generation = 3
	if got := engineRetryAfter(vm, began); got != engineRetry {
		t.Errorf("with Running of an older generation: asked again after %s, want %s", got, engineRetry)
	}
}
