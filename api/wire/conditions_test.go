package wire

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

func TestConditionWantMetFollowsTheGenerationRule(t *testing.T) {
	running := func(observed int64, status metav1.ConditionStatus, reason string) []metav1.Condition {
		return []metav1.Condition{{Type: resource.VMRunning, Status: status, Reason: reason, ObservedGeneration: observed}}
	}
	want := ConditionWant{Type: resource.VMRunning, Status: metav1.ConditionTrue}
	cases := []struct {
		name  string
		conds []metav1.Condition
		gen   int64
		w     ConditionWant
		met   bool
		state string
	}{
		{"current", running(3, "True", "Started"), 3, want, true, "Running=True reason Started"},
		{"observed ahead of a stale read", running(4, "True", "Started"), 3, want, true, ""},
		{"older generation", running(2, "True", "Started"), 3, want, false, "(for an older generation)"},
		{"generation 0 is not stamped: current", running(0, "True", "Started"), 3, want, true, ""},
		{"generation 0 with the wrong status", running(0, "False", "Stopped"), 3, want, false, "Running=False reason Stopped"},
		{"missing", nil, 1, want, false, "no Running condition yet"},
		{"wrong status", running(1, "False", "Stopped"), 1, want, false, "Running=False"},
		{"any status", running(1, "False", "Stopped"), 1, ConditionWant{Type: resource.VMRunning}, true, ""},
		{"reason accepted", running(1, "False", "StartFailed"), 1, ConditionWant{Type: resource.VMRunning, Reasons: []string{"Started", "StartFailed"}}, true, ""},
		{"reason refused", running(1, "False", "Starting"), 1, ConditionWant{Type: resource.VMRunning, Reasons: []string{"Started", "StartFailed"}}, false, "reason Starting"},
	}
	for _, c := range cases {
		met, state := c.w.Met(c.conds, c.gen)
		if met != c.met || (c.state != "" && !strings.Contains(state, c.state)) {
			t.Errorf("%s: Met = %v, %q; want %v and %q", c.name, met, state, c.met, c.state)
		}
	}
}

func TestVMFailureIsOnlyACurrentFailedCondition(t *testing.T) {
	vm := &resource.VM{Metadata: resource.ObjectMeta{Name: "dev", Generation: 2}}
	vm.Status.Conditions = []metav1.Condition{
		{Type: resource.VMCreated, Status: "True", Reason: resource.ReasonCreated, ObservedGeneration: 2},
		{Type: resource.VMRunning, Status: "False", Reason: resource.ReasonStartFailed, ObservedGeneration: 1, Message: "old"},
	}
	if c := VMFailure(vm); c != nil {
		t.Fatalf("a failure of generation 1 counts for generation 2: %+v", c)
	}
	vm.Status.Conditions[1].ObservedGeneration = 2
	if c := VMFailure(vm); c == nil || c.Message != "old" {
		t.Fatalf("VMFailure = %+v, want the failed Running condition", c)
	}
}

func TestConditionWantString(t *testing.T) {
	w := ConditionWant{Type: "Running", Status: "True", Reasons: []string{"Started", "StartFailed"}}
	if got := w.String(); got != "Running=True (Started or StartFailed)" {
		t.Fatalf("String = %q", got)
	}
}
