package resource

import "k8s.io/apimachinery/pkg/api/meta"

// Phases of a VM: where its machine is, read from its conditions, as
// kubectl reads a pod's. Spec.running is where it should be.
const (
	PhasePending     = "Pending"     // not created yet
	PhaseStarting    = "Starting"    // booting, or restarting
	PhaseRunning     = "Running"     // running
	PhaseStopping    = "Stopping"    // running, asked to stop
	PhaseStopped     = "Stopped"     // created, not running
	PhaseFailed      = "Failed"      // a create, start or stop failed; the reason says which
	PhaseTerminating = "Terminating" // being deleted
)

// PhaseAndReason returns the phase of v's machine and the reason of the
// condition it was read from ("" when there is none).
func (v *VM) PhaseAndReason() (phase, reason string) {
	if v.Metadata.Terminating() {
		return PhaseTerminating, ""
	}
	created := meta.FindStatusCondition(v.Status.Conditions, VMCreated)
	if created != nil && created.Reason == ReasonCreateFailed {
		return PhaseFailed, created.Reason
	}
	running := meta.FindStatusCondition(v.Status.Conditions, VMRunning)
	if running == nil {
		if created != nil && created.Status == "True" {
			return PhaseStopped, created.Reason
		}
		if created != nil {
			return PhasePending, created.Reason
		}
		return PhasePending, ""
	}
	switch {
	case running.Status == "True" && v.Spec.Running:
		return PhaseRunning, running.Reason
	case running.Status == "True":
		return PhaseStopping, running.Reason
	}
	switch running.Reason {
	case ReasonStartFailed, ReasonStopFailed:
		return PhaseFailed, running.Reason
	case ReasonStarting:
		return PhaseStarting, running.Reason
	case ReasonReconciling: // stopping to restart, or to stop
		if v.Spec.Running {
			return PhaseStarting, running.Reason
		}
		return PhaseStopping, running.Reason
	case ReasonPending:
		return PhasePending, running.Reason
	}
	return PhaseStopped, running.Reason
}
