package wire

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// AppSettled is what every wait for the App waits for: its Settled
// condition, observed for the App's current generation.
var AppSettled = ConditionWant{Type: resource.AppSettled}

// AppSettledTrue is the App's Settled condition True: what a front door
// that made a change waits for, current for the generation the change
// gave the App.
var AppSettledTrue = ConditionWant{Type: resource.AppSettled, Status: metav1.ConditionTrue}

// AppDone reports whether the App settled after its last change: Settled,
// current by resource.ConditionCurrent, is True or names a failure
// (resource.AppFailures) that only another change can end, and does not
// speak of a suspension that a wake ended (AppWaking).
func AppDone(a *resource.App) bool {
	if AppWaking(a) {
		return false
	}
	if met, _ := AppSettled.Met(a.Status.Conditions, a.Metadata.Generation); !met {
		return false
	}
	c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
	return c.Status == metav1.ConditionTrue || slices.Contains(resource.AppFailures, c.Reason)
}

// AppWaking reports whether the App was woken (a start, a Docker request)
// and its status does not say so yet: Settled still speaks of the
// suspension, which no longer holds. A wake changes no spec, so Settled
// stays current for the App's generation until the controller takes it.
func AppWaking(a *resource.App) bool {
	c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
	return c != nil && c.Reason == resource.ReasonSuspended && !a.Suspended()
}
