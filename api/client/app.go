package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// AppAction asks the App to start (creating it when missing) or stop. With
// WaitAtMost, the answer comes once the App is Settled for the change or
// failed (AppFailed says which), or with a Timeout error; with NoWait, at
// once. Cold sets the App's spec.cold (false without it).
func (c *Client) AppAction(ctx context.Context, action string, w Await, opts ...ActionOption) (*resource.App, error) {
	if c.dryRun {
		return nil, errNoDryRun
	}
	out := &resource.App{}
	return out, c.do(ctx, http.MethodPost, wire.Base+"/app/"+action+"?"+actionQuery(w, opts), "", nil, out)
}

// WaitApp follows the App until it settled after its last change (see
// wire.AppDone; a woken App's Settled counts once it no longer speaks of
// the suspension) and returns it; a failure ends the wait with an error that
// carries Settled's message.
func (c *Client) WaitApp(ctx context.Context, timeout time.Duration) (*resource.App, error) {
	u := UntilCondition(resource.AppSettled, "True")
	u.Fail = func(obj resource.Object) error { return AppFailed(obj.(*resource.App)) }
	u.NotYet = func(obj resource.Object) bool { return wire.AppWaking(obj.(*resource.App)) }
	obj, err := c.Wait(ctx, resource.KindApp, "", resource.AppName, u, timeout)
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}

// AppFailed returns the failure the App's current Settled condition
// reports, as an error for a person, or nil.
func AppFailed(a *resource.App) error {
	if !wire.AppDone(a) {
		return nil
	}
	s := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
	if s.Status == "True" {
		return nil
	}
	return fmt.Errorf("the App did not settle: %s: %s", s.Reason, s.Message)
}

// PatchApp merge-patches the App and returns it as written. When there is
// no App yet, it creates one from the patch, as the defaults with the
// patch applied.
func (c *Client) PatchApp(ctx context.Context, patch []byte) (*resource.App, error) {
	obj, err := c.Patch(ctx, resource.KindApp, "", resource.AppName, patch)
	if resource.IsNotFound(err) {
		a := resource.NewObject(resource.KindApp).(*resource.App)
		a.Metadata.Name = resource.AppName
		if err := json.Unmarshal(patch, a); err != nil {
			return nil, fmt.Errorf("the patch is not an App: %w", err)
		}
		obj, err = c.Create(ctx, a)
		if resource.ReasonOf(err) == resource.ReasonAlreadyExists {
			// Made meanwhile by someone else: patch theirs.
			obj, err = c.Patch(ctx, resource.KindApp, "", resource.AppName, patch)
		}
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}
