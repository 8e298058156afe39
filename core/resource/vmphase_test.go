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
		{"resumed", true, false, []metav1.Condition{created, cond(VMRunning, "True", ReasonResumed)}, PhaseRunning, ReasonResumed},
		{"booted cold", true, false, []metav1.Condition{created, cond(VMRunning, "True", ReasonColdBoot)}, PhaseRunning, ReasonColdBoot},
		{"resumed, asked to stop", false, false, []metav1.Condition{created, cond(VMRunning, "True", ReasonResumed)}, PhaseStopping, ReasonResumed},
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

func TestAppPhase(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason}
	}
	created := cond(AppCreated, "True", ReasonCreated)
	up := cond(AppRunning, "True", ReasonStarted)
	engineUp := cond(AppContainerEngineReady, "True", "Connected")
	now := time.Now()
	tests := []struct {
		name       string
		running    bool
		deleting   bool
		conds      []metav1.Condition
		phase, why string
	}{
		{"new", true, false, nil, PhasePending, ""},
		{"making the VM", true, false, []metav1.Condition{cond(AppCreated, "False", "Creating")}, PhasePending, "Creating"},
		{"template failed", true, false, []metav1.Condition{cond(AppCreated, "False", ReasonTemplateFailed)}, PhaseFailed, ReasonTemplateFailed},
		{"VM create failed", true, false, []metav1.Condition{cond(AppCreated, "False", ReasonCreateFailed)}, PhaseFailed, ReasonCreateFailed},
		{"booting", true, false, []metav1.Condition{created, cond(AppRunning, "False", ReasonStarting)}, PhaseStarting, ReasonStarting},
		{"start failed, still wanted", true, false, []metav1.Condition{created, cond(AppRunning, "False", ReasonStartFailed)}, PhaseFailed, ReasonStartFailed},
		{"stopped, still wanted", true, false, []metav1.Condition{created, cond(AppRunning, "False", ReasonStopped)}, PhaseStopped, ReasonStopped},
		{"engine not answering", true, false, []metav1.Condition{created, up, cond(AppContainerEngineReady, "False", "Connecting")}, PhaseStarting, "Connecting"},
		{"engine condition not written yet", true, false, []metav1.Condition{created, up}, PhaseStarting, ""},
		{"restarting into a change", true, false, []metav1.Condition{created, up, engineUp, cond(AppSettled, "False", "Restarting")}, PhaseStarting, "Restarting"},
		{"a change refused", true, false, []metav1.Condition{created, up, engineUp, cond(AppSettled, "False", ReasonInvalidSpec)}, PhaseFailed, ReasonInvalidSpec},
		{"running", true, false, []metav1.Condition{created, up, engineUp, cond(AppSettled, "True", "Running")}, PhaseRunning, ReasonStarted},
		{"stopping", false, false, []metav1.Condition{created, up, engineUp}, PhaseStopping, ReasonStarted},
		{"stopped", false, false, []metav1.Condition{created, cond(AppRunning, "False", ReasonStopped), cond(AppSettled, "True", "Stopped")}, PhaseStopped, ReasonStopped},
		{"suspending", true, false, []metav1.Condition{created, up, engineUp, cond(AppSettled, "False", ReasonSuspending)}, PhaseStopping, ReasonSuspending},
		{"suspended", true, false, []metav1.Condition{created, cond(AppRunning, "False", ReasonSuspended), cond(AppContainerEngineReady, "False", ReasonSuspended), cond(AppSettled, "True", ReasonSuspended)}, PhaseSuspended, ReasonSuspended},
		{"deleting", true, true, []metav1.Condition{created, up}, PhaseTerminating, ""},
	}
	for _, tt := range tests {
		a := &App{Spec: AppSpec{Running: tt.running}, Status: AppStatus{Conditions: tt.conds}}
		if tt.deleting {
			a.Metadata.DeletionTimestamp = &now
		}
		if phase, why := a.PhaseAndReason(); phase != tt.phase || why != tt.why {
			t.Errorf("%s: PhaseAndReason = %s, %q; want %s, %q", tt.name, phase, why, tt.phase, tt.why)
		}
	}
}
