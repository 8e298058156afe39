package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// Until is what Wait waits for: a condition of the object, or its
// deletion.
type Until struct {
	// Condition is waited for unless Gone is set; it must be current by
	// resource.ConditionCurrent, the rule the server's ?wait= uses too.
	Condition wire.ConditionWant
	// Gone waits until the object does not exist.
	Gone bool
	// Fail, when set, ends the wait early with the error it returns for an
	// object that will not get there (a VM whose start failed).
	Fail func(resource.Object) error
	// NotYet, when set, says the condition, though met, speaks of a state
	// the object is leaving (an App being woken): the wait goes on.
	NotYet func(resource.Object) bool
}

// UntilCondition waits for condition t with status (True when empty) and,
// when any are given, one of reasons.
func UntilCondition(t string, status metav1.ConditionStatus, reasons ...string) Until {
	if status == "" {
		status = metav1.ConditionTrue
	}
	return Until{Condition: wire.ConditionWant{Type: t, Status: status, Reasons: reasons}}
}

// UntilGone waits until the object is deleted.
func UntilGone() Until { return Until{Gone: true} }

// String says what is waited for.
func (u Until) String() string {
	if u.Gone {
		return "deletion"
	}
	return u.Condition.String()
}

// Wait watches the object k/ns/name until u holds and returns the object
// as it was then (nil once gone). An object that does not exist yet is
// waited for. After timeout (0: no limit) it fails with a Timeout error
// that says what the object last looked like; when ctx ends, with ctx's
// error. The watch resumes across the daemon ending its stream (see
// Follow).
func (c *Client) Wait(ctx context.Context, k *resource.Kind, ns, name string, u Until, timeout time.Duration) (resource.Object, error) {
	ns = namespaceOf(k, ns)
	waitCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var (
		found   resource.Object
		failed  error
		last    = "it does not exist yet"
		inList  bool // the object was in the fresh list being read
		opts    = ListOptions{FieldSelector: "metadata.name=" + name}
		ref     = k.Singular() + "/" + name
		current = func(obj resource.Object) bool {
			if u.Fail != nil {
				if failed = u.Fail(obj); failed != nil {
					return true
				}
			}
			if u.Gone {
				last = "it exists"
				return false
			}
			met, state := u.Condition.Met(wire.ConditionsOf(obj), obj.GetMeta().Generation)
			last = state
			if met && u.NotYet != nil && u.NotYet(obj) {
				met = false
			}
			if met {
				found = obj
			}
			return met
		}
	)
	err := c.Follow(waitCtx, k, ns, opts, func(ev Event) (bool, error) {
		switch ev.Type {
		case "BOOKMARK":
			// A fresh list without the object: it is not there.
			absent := ev.Listing && !inList
			inList = false
			return u.Gone && absent, nil
		case "DELETED":
			last = "it was deleted"
			return u.Gone, nil
		}
		inList = ev.Listing
		return current(ev.Object), nil
	})
	switch {
	case failed != nil:
		return nil, failed
	case err == nil:
		return found, nil
	case errors.Is(waitCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, resource.Errorf(resource.ReasonTimeout, "timed out after %s waiting for %s (%s); last seen: %s", timeout, ref, u, last)
	}
	return nil, err
}

// WaitVM follows a VM until its condition t (Created or Running) is True,
// and returns it then; a failed create, start or stop ends the wait with
// an error carrying the condition's message.
func (c *Client) WaitVM(ctx context.Context, ns, name, t string, timeout time.Duration) (*resource.VM, error) {
	u := UntilCondition(t, metav1.ConditionTrue)
	u.Fail = func(obj resource.Object) error { return VMFailed(obj.(*resource.VM)) }
	obj, err := c.Wait(ctx, resource.KindVM, ns, name, u, timeout)
	if err != nil {
		return nil, err
	}
	return obj.(*resource.VM), nil
}

// VMFailed returns the failure a VM's current conditions report, as an
// error for a person, or nil.
func VMFailed(vm *resource.VM) error {
	c := wire.VMFailure(vm)
	if c == nil {
		return nil
	}
	return fmt.Errorf("vm %s: %s: %s", vm.Metadata.Name, c.Reason, c.Message)
}
