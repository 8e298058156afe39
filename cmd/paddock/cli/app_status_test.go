package cli

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// 'paddock status' and 'paddock get apps' say the App's phase by the rule
// the tray's status line reads (resource.App.PhaseAndCondition): a start
// that failed while the App is still wanted running is Failed, never
// Starting.
func TestAppStatusSaysThePhase(t *testing.T) {
	a := &resource.App{Metadata: resource.ObjectMeta{Name: resource.AppName}}
	a.Spec.Running = true
	a.Spec.ContainerEngine.Name = resource.EngineMoby
	a.Status.Conditions = []metav1.Condition{
		{Type: resource.AppCreated, Status: "True", Reason: resource.ReasonCreated},
		{Type: resource.AppRunning, Status: "False", Reason: resource.ReasonStartFailed, Message: "no SSH"},
	}
	if got, want := appStatus(a), "Failed (Running StartFailed): no SSH"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	cols, vals := columns(a, true)
	if strings.Join(cols, " ") != "NAME DESIRED ENGINE STATUS AGE REASON" || vals[1] != "Running" || vals[3] != "Failed" || vals[5] != "StartFailed" {
		t.Errorf("table %v %v", cols, vals)
	}
	a.Status.Conditions[1] = metav1.Condition{Type: resource.AppRunning, Status: "True", Reason: resource.ReasonStarted}
	if got, want := appStatus(a), "Starting"; got != want { // no engine condition yet
		t.Errorf("status line %q, want %q", got, want)
	}
	a.Status.Conditions = append(a.Status.Conditions, metav1.Condition{Type: resource.AppContainerEngineReady, Status: "False", Reason: "Connecting", Message: "no answer"})
	if got, want := appStatus(a), "Starting (ContainerEngineReady Connecting): no answer"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}

	// Suspended: its phase, and its Running line.
	a.Status.Conditions = []metav1.Condition{
		{Type: resource.AppCreated, Status: "True", Reason: resource.ReasonCreated},
		{Type: resource.AppRunning, Status: "False", Reason: resource.ReasonSuspended, Message: "suspended after 15m"},
		{Type: resource.AppContainerEngineReady, Status: "False", Reason: resource.ReasonSuspended},
		{Type: resource.AppSettled, Status: "True", Reason: resource.ReasonSuspended},
	}
	if got, want := appStatus(a), "Suspended (Running Suspended): suspended after 15m"; got != want {
		t.Errorf("status line %q, want %q", got, want)
	}
	if got, want := runningLine(&a.Status.Conditions[1]), "Suspended: suspended after 15m"; got != want {
		t.Errorf("Running line %q, want %q", got, want)
	}
}
