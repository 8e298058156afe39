package resource

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestVMPhase(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason}
	}
	created := cond(VMCreated, "True", ReasonCreated)
	now := time.Now()
	tests := []struct {
		name       string
		running    bool
		deleting   bool
		conds      []metav1.Condition
		phase, why string
	}{
		{"new", true, false, nil, PhasePending, ""},
		{"being created", true, false, []metav1.Condition{cond(VMCreated, "False", ReasonPending)}, PhasePending, ReasonPending},
		{"create failed", true, false, []metav1.Condition{cond(VMCreated, "False", ReasonCreateFailed)}, PhaseFailed, ReasonCreateFailed},
		{"created, never started", false, false, []metav1.Condition{created}, PhaseStopped, ReasonCreated},
		{"booting", true, false, []metav1.Condition{created, cond(VMRunning, "False", ReasonStarting)}, PhaseStarting, ReasonStarting},
		{"running", true, false, []metav1.Condition{created, cond(VMRunning, "True", ReasonStarted)}, PhaseRunning, ReasonStarted},
		{"asked to stop, still running", false, false, []metav1.Condition{created, cond(VMRunning, "True", ReasonStarted)}, PhaseStopping, ReasonStarted},
		{"restarting", true, false, []metav1.Condition{created, cond(VMRunning, "False", ReasonReconciling)}, PhaseStarting, ReasonReconciling},
		{"start failed, still wanted", true, false, []metav1.Condition{created, cond(VMRunning, "False", ReasonStartFailed)}, PhaseFailed, ReasonStartFailed},
		{"stop failed", false, false, []metav1.Condition{created, cond(VMRunning, "False", ReasonStopFailed)}, PhaseFailed, ReasonStopFailed},
		{"stopped, asked to start", true, false, []metav1.Condition{created, cond(VMRunning, "False", ReasonStopped)}, PhaseStopped, ReasonStopped},
		{"deleting", true, true, []metav1.Condition{created, cond(VMRunning, "True", ReasonStarted)}, PhaseTerminating, ""},
	}
	for _, tt := range tests {
		v := &VM{Spec: VMSpec{Running: tt.running}, Status: VMStatus{Conditions: tt.conds}}
		if tt.deleting {
			v.Metadata.DeletionTimestamp = &now
		}
		if phase, why := v.PhaseAndReason(); phase != tt.phase || why != tt.why {
			t.Errorf("%s: PhaseAndReason = %s, %q; want %s, %q", tt.name, phase, why, tt.phase, tt.why)
		}
	}
}
