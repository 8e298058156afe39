package resource

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phases of a VM or of the App: where the machine is, read from the
// conditions, as kubectl reads a pod's. Spec.running is where it should be.
const (
	PhasePending     = "Pending"     // not created yet
	PhaseStarting    = "Starting"    // booting, or restarting; for the App, also its engine starting or a change being applied
	PhaseRunning     = "Running"     // running
	PhaseStopping    = "Stopping"    // running, asked to stop
	PhaseStopped     = "Stopped"     // created, not running
	PhaseFailed      = "Failed"      // a create, start or stop failed; the reason says which
	PhaseTerminating = "Terminating" // being deleted
	PhaseSuspended   = "Suspended"   // the App only: it should run, was idle, and its VM is stopped with its state saved until something wakes it
)

// PhaseAndReason returns the phase of v's machine and the reason of the
// condition it was read from ("" when there is none).
func (v *VM) PhaseAndReason() (phase, reason string) {
	phase, c := machinePhase(&v.Metadata, v.Spec.Running, v.Status.Conditions, ReasonCreateFailed)
	return phase, reasonOf(c)
}

// PhaseAndCondition returns the phase of the App and the condition it was
// read from (nil when there is none). It is the VM's rule (PhaseAndReason)
// over the Created and Running conditions the App mirrors from its VM,
// with what only an App has: a VM it cannot make or change (Created or
// Settled giving one of AppFailures) is Failed, an App whose Running says
// Suspended is Suspended (Stopping while its VM saves its state on the way
// there), and a running VM whose
// engine does not answer yet, or that does not run the App's spec yet, is
// Starting.
func (a *App) PhaseAndCondition() (string, *metav1.Condition) {
	conds := a.Status.Conditions
	phase, c := machinePhase(&a.Metadata, a.Spec.Running, conds, AppFailures...)
	if phase == PhaseTerminating || phase == PhaseFailed {
		return phase, c
	}
	settled := meta.FindStatusCondition(conds, AppSettled)
	if settled != nil && settled.Status != metav1.ConditionTrue && slices.Contains(AppFailures, settled.Reason) {
		return PhaseFailed, settled
	}
	if c != nil && c.Type == AppRunning && c.Reason == ReasonSuspended {
		return PhaseSuspended, c
	}
	if settled != nil && settled.Reason == ReasonSuspending && phase == PhaseRunning {
		return PhaseStopping, settled
	}
	if phase != PhaseRunning {
		return phase, c
	}
	if engine := meta.FindStatusCondition(conds, AppContainerEngineReady); engine == nil || engine.Status != metav1.ConditionTrue {
		return PhaseStarting, engine
	}
	if settled != nil && settled.Status != metav1.ConditionTrue {
		return PhaseStarting, settled
	}
	return phase, c
}

// PhaseAndReason returns the phase of the App (PhaseAndCondition) and the
// reason of the condition it was read from ("" when there is none).
func (a *App) PhaseAndReason() (phase, reason string) {
	phase, c := a.PhaseAndCondition()
	return phase, reasonOf(c)
}

func reasonOf(c *metav1.Condition) string {
	if c == nil {
		return ""
	}
	return c.Reason
}

// machinePhase is the phase rule of a machine that should run when wanted,
// given the object's metadata and its Created and Running conditions:
// Created giving one of createFailures is Failed. It returns the condition
// the phase was read from, nil when there is none.
func machinePhase(m *ObjectMeta, wanted bool, conds []metav1.Condition, createFailures ...string) (string, *metav1.Condition) {
	if m.Terminating() {
		return PhaseTerminating, nil
	}
	created := meta.FindStatusCondition(conds, VMCreated)
	if created != nil && created.Status != metav1.ConditionTrue && slices.Contains(createFailures, created.Reason) {
		return PhaseFailed, created
	}
	running := meta.FindStatusCondition(conds, VMRunning)
	if running == nil {
		if created != nil && created.Status == metav1.ConditionTrue {
			return PhaseStopped, created
		}
		return PhasePending, created
	}
	switch {
	case running.Status == metav1.ConditionTrue && wanted:
		return PhaseRunning, running
	case running.Status == metav1.ConditionTrue:
		return PhaseStopping, running
	}
	switch running.Reason {
	case ReasonStartFailed, ReasonStopFailed:
		return PhaseFailed, running
	case ReasonStarting:
		return PhaseStarting, running
	case ReasonReconciling: // stopping to restart, or to stop
		if wanted {
			return PhaseStarting, running
		}
		return PhaseStopping, running
	case ReasonPending:
		return PhasePending, running
	}
	return PhaseStopped, running
}
