package wire

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// ConditionWant is a condition a wait waits for.
type ConditionWant struct {
	Type string
	// Status is the status wanted; empty accepts any.
	Status metav1.ConditionStatus
	// Reasons, when any are given, are the reasons accepted.
	Reasons []string
}

// Met reports whether conds, the conditions of an object at generation gen,
// hold the wanted condition, current by resource.ConditionCurrent (the
// rule every wait follows); state says what
// they hold instead, for messages.
func (w ConditionWant) Met(conds []metav1.Condition, gen int64) (met bool, state string) {
	c := meta.FindStatusCondition(conds, w.Type)
	if c == nil {
		return false, "no " + w.Type + " condition yet"
	}
	state = fmt.Sprintf("%s=%s reason %s", c.Type, c.Status, c.Reason)
	if c.Message != "" {
		state += ": " + c.Message
	}
	if !resource.ConditionCurrent(c, gen) {
		return false, state + " (for an older generation)"
	}
	if w.Status != "" && c.Status != w.Status {
		return false, state
	}
	if len(w.Reasons) > 0 && !slices.Contains(w.Reasons, c.Reason) {
		return false, state
	}
	return true, state
}

// String names the wanted condition: Running=True (Started).
func (w ConditionWant) String() string {
	s := w.Type
	if w.Status != "" {
		s += "=" + string(w.Status)
	}
	if len(w.Reasons) > 0 {
		s += " (" + strings.Join(w.Reasons, " or ") + ")"
	}
	return s
}

// ConditionsOf returns the conditions of an object's status; kinds without
// conditions have none.
func ConditionsOf(obj resource.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *resource.VM:
		return o.Status.Conditions
	case *resource.App:
		return o.Status.Conditions
	}
	return nil
}

// vmFailures are the reasons by which a VM's conditions say an action
// failed.
var vmFailures = []string{resource.ReasonCreateFailed, resource.ReasonStartFailed, resource.ReasonStopFailed}

// VMFailure returns the VM's current Created or Running condition that says
// creating, starting or stopping it failed, or nil.
func VMFailure(vm *resource.VM) *metav1.Condition {
	for _, t := range []string{resource.VMCreated, resource.VMRunning} {
		c := meta.FindStatusCondition(vm.Status.Conditions, t)
		if c != nil && resource.ConditionCurrent(c, vm.Metadata.Generation) && slices.Contains(vmFailures, c.Reason) {
			return c
		}
	}
	return nil
}
