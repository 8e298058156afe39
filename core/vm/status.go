package vm

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

func setCond(st *resource.VMStatus, gen int64, typ string, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	resource.SetCondition(&st.Conditions, gen, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg})
}

// setRunning sets the Running condition and counts each time it becomes
// True.
func setRunning(st *resource.VMStatus, gen int64, running bool, reason, msg string) {
	if running && !meta.IsStatusConditionTrue(st.Conditions, resource.VMRunning) {
		st.RestartCount++
	}
	setCond(st, gen, resource.VMRunning, running, reason, msg)
}
