package controller

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
)

// Conditioned is an object whose status holds conditions: the kinds a
// terminal error can be recorded on.
type Conditioned interface {
	resource.Object
	StatusConditions() *[]metav1.Condition
}

// TerminalError is a reconcile failure that retrying cannot fix, such as a
// machine that would not boot. The runtime does not retry it; it records it
// in the object's status instead, as condition Condition set to False with
// Reason and the error as its message, stamped with the generation the
// reconcile saw. The record survives a restart of the daemon; the
// reconcile reads it back with Failed and decides when to try again.
type TerminalError struct {
	// Object is the object as the failed reconcile read it: its UID and
	// generation say which object and which spec failed.
	Object    Conditioned
	Condition string
	Reason    string
	Err       error
}

func (e *TerminalError) Error() string { return e.Err.Error() }
func (e *TerminalError) Unwrap() error { return e.Err }

// Terminal marks err, which reconciling obj met, as terminal: it is
// recorded in obj's condition with reason, not retried.
func Terminal(obj Conditioned, condition, reason string, err error) error {
	return &TerminalError{Object: obj, Condition: condition, Reason: reason, Err: err}
}

// Failed reports whether obj's condition records a terminal failure with
// reason that is current (resource.ConditionCurrent, the rule every reader
// of conditions follows), that is, whether nothing has changed in obj's
// spec since that failure.
func Failed(obj Conditioned, condition, reason string) bool {
	c := meta.FindStatusCondition(*obj.StatusConditions(), condition)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason && resource.ConditionCurrent(c, obj.GetMeta().Generation)
}

// errSuperseded ends recording a terminal error of an object that was
// replaced or whose spec changed since: the change enqueued it again, and
// its next reconcile decides afresh.
var errSuperseded = errors.New("the object changed since the failure")

// recordTerminal writes terr into the status of the object at key.
func (c *Controller) recordTerminal(ctx context.Context, key resource.Key, terr *TerminalError) error {
	seen := terr.Object.GetMeta()
	_, err := UpdateStatus(ctx, c.store, key, func(obj resource.Object) (bool, error) {
		m := obj.GetMeta()
		if m.UID != seen.UID || m.Generation != seen.Generation {
			return false, errSuperseded
		}
		co, ok := obj.(Conditioned)
		if !ok {
			return false, fmt.Errorf("a %s has no conditions to record a terminal error in", key.Kind)
		}
		return resource.SetCondition(co.StatusConditions(), m.Generation, metav1.Condition{
			Type:    terr.Condition,
			Status:  metav1.ConditionFalse,
			Reason:  terr.Reason,
			Message: terr.Err.Error(),
		}), nil
	})
	if errors.Is(err, errSuperseded) || resource.IsNotFound(err) {
		return nil
	}
	return err
}
