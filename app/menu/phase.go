package menu

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// Phase is where an App or a VM is, as the tray shows it. It is read from
// the phase the CLI shows (resource's PhaseAndReason), never on its own:
// Pending is Starting when the machine is wanted running, else Stopped,
// and Terminating is Deleting.
type Phase int

const (
	Stopped Phase = iota
	Starting
	Running
	Stopping
	Failed
	Deleting
	// Suspended is an App that should run, was idle, and whose VM is
	// stopped with its state saved until a Docker request or a start
	// wakes it.
	Suspended
)

var phaseNames = [...]string{"Stopped", "Starting", "Running", "Stopping", "Failed", "Deleting", "Suspended"}

func (p Phase) String() string { return phaseNames[p] }

// phaseOf is the tray's phase for a resource phase of a machine that is
// wanted running or not.
func phaseOf(phase string, wanted bool) Phase {
	switch phase {
	case resource.PhasePending:
		if wanted {
			return Starting
		}
		return Stopped
	case resource.PhaseStarting:
		return Starting
	case resource.PhaseRunning:
		return Running
	case resource.PhaseStopping:
		return Stopping
	case resource.PhaseFailed:
		return Failed
	case resource.PhaseTerminating:
		return Deleting
	case resource.PhaseSuspended:
		return Suspended
	}
	return Stopped
}

// AppPhase says where the App is and, for Starting and Failed, what it is
// doing or why it failed. boot is the step its VM's boot is at ("" when
// unknown). A nil App has never been created: Stopped.
func AppPhase(app *resource.App, boot string) (Phase, string) {
	if app == nil {
		return Stopped, ""
	}
	shared, c := app.PhaseAndCondition()
	switch phase := phaseOf(shared, app.Spec.Running); phase {
	case Failed:
		return Failed, messageOf(c)
	case Starting:
		return Starting, starting(app, c, boot)
	default:
		return phase, ""
	}
}

// starting says what a starting App is doing, from the condition its phase
// was read from and its VM's boot step.
func starting(app *resource.App, c *metav1.Condition, boot string) string {
	switch {
	case c == nil || c.Type == resource.AppCreated:
		return "creating the VM"
	case c.Type == resource.AppContainerEngineReady:
		return "starting " + engineOf(app)
	case c.Type == resource.AppSettled && c.Message != "":
		return c.Message
	case c.Type == resource.AppSettled:
		return "applying changes"
	case c.Reason == resource.ReasonReconciling:
		return "restarting the VM"
	case boot != "":
		return boot
	}
	return "booting the VM"
}

// messageOf says what went wrong: the condition's message, else its reason.
func messageOf(c *metav1.Condition) string {
	switch {
	case c == nil:
		return ""
	case c.Message != "":
		return c.Message
	}
	return c.Reason
}

// Summary is the App's sizes for the status line: "moby, 2 CPUs, 4 GiB".
func Summary(app *resource.App) string {
	cpus := "1 CPU"
	if app.Spec.CPUs != 1 {
		cpus = fmt.Sprintf("%d CPUs", app.Spec.CPUs)
	}
	return fmt.Sprintf("%s, %s, %s", engineOf(app), cpus, spaced(app.Spec.Memory))
}
