package menu

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// Phase is where an App or a VM is, as a person would say it.
type Phase int

const (
	Stopped Phase = iota
	Starting
	Running
	Stopping
	Failed
	Deleting
)

var phaseNames = [...]string{"Stopped", "Starting", "Running", "Stopping", "Failed", "Deleting"}

func (p Phase) String() string { return phaseNames[p] }

// failureReasons are the condition reasons that say a step failed: the
// VM's, which the App forwards, and those the App's controller (core/app)
// gives when it cannot make the VM at all.
var failureReasons = map[string]bool{
	resource.ReasonCreateFailed: true,
	resource.ReasonStartFailed:  true,
	resource.ReasonStopFailed:   true,
	"TemplateFailed":            true,
	"VMNameTaken":               true,
	"Invalid":                   true,
}

// failure returns the first condition among conds that reports a failure.
func failure(conds []metav1.Condition, types ...string) *metav1.Condition {
	for _, t := range types {
		if c := meta.FindStatusCondition(conds, t); c != nil && c.Status != metav1.ConditionTrue && failureReasons[c.Reason] {
			return c
		}
	}
	return nil
}

// reasonOf says what went wrong: the condition's message, else its reason.
func reasonOf(c *metav1.Condition) string {
	if c.Message != "" {
		return c.Message
	}
	return c.Reason
}

// AppPhase says where the App is and, for Starting and Failed, what it is
// doing or why it failed. A nil App has never been created: Stopped.
func AppPhase(app *resource.App) (Phase, string) {
	if app == nil {
		return Stopped, ""
	}
	conds := app.Status.Conditions
	if app.Metadata.DeletionTimestamp != nil {
		return Deleting, ""
	}
	if c := failure(conds, resource.AppCreated, resource.AppRunning, resource.AppSettled); c != nil {
		return Failed, reasonOf(c)
	}
	running := meta.IsStatusConditionTrue(conds, resource.AppRunning)
	if !app.Spec.Running {
		if running {
			return Stopping, ""
		}
		return Stopped, ""
	}
	switch {
	case !meta.IsStatusConditionTrue(conds, resource.AppCreated):
		return Starting, "creating the VM"
	case !running:
		return Starting, "booting the VM"
	case !meta.IsStatusConditionTrue(conds, resource.AppContainerEngineReady):
		return Starting, "starting " + engineOf(app)
	}
	if settled := meta.FindStatusCondition(conds, resource.AppSettled); settled != nil && settled.Status != metav1.ConditionTrue {
		if settled.Message != "" {
			return Starting, settled.Message
		}
		return Starting, "applying changes"
	}
	return Running, ""
}

// VMPhase says where a VM is and, for Failed, why.
func VMPhase(vm *resource.VM) (Phase, string) {
	conds := vm.Status.Conditions
	if vm.Metadata.DeletionTimestamp != nil {
		return Deleting, ""
	}
	if c := failure(conds, resource.VMCreated, resource.VMRunning); c != nil {
		return Failed, reasonOf(c)
	}
	running := meta.IsStatusConditionTrue(conds, resource.VMRunning)
	switch {
	case vm.Spec.Running && running:
		return Running, ""
	case vm.Spec.Running:
		return Starting, ""
	case running:
		return Stopping, ""
	}
	return Stopped, ""
}

// Summary is the App's sizes for the status line: "moby, 2 CPUs, 4 GiB".
func Summary(app *resource.App) string {
	cpus := "1 CPU"
	if app.Spec.CPUs != 1 {
		cpus = fmt.Sprintf("%d CPUs", app.Spec.CPUs)
	}
	return fmt.Sprintf("%s, %s, %s", engineOf(app), cpus, spaced(app.Spec.Memory))
}
