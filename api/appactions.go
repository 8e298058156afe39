package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

type appActionInput struct {
	Wait    bool   `query:"wait" doc:"Answer once the App is Settled for this change (or failed) rather than at once."`
	Timeout string `query:"timeout" doc:"How long to wait, e.g. 90s or 10m; 0 waits forever. Default 10m." example:"10m"`
	Cold    bool   `query:"cold" doc:"Set spec.cold: a stop shuts the App's VM down fully rather than saving its state, a start boots it fully rather than resuming a saved state. Default false: a stop saves, a start resumes."`
}

func (s *Server) registerAppActions() {
	for _, running := range []bool{true, false} {
		name, summary := "start", "Start the App, creating it when missing: set spec.running and spec.cold (an App whose start failed is tried again), and with wait=true answer once it is Settled or failed. "+
			"Its VM resumes the state the last stop saved unless cold=true. A suspended App (spec.suspendWhenIdle) is woken."
		if !running {
			name, summary = "stop", "Stop the App: clear spec.running and set spec.cold, and with wait=true answer once it is Settled (stopped) or failed. "+
				"Its VM's state is saved, for the next start to resume, unless cold=true (a QEMU VM; others shut down)."
		}
		huma.Register(s.api, huma.Operation{
			OperationID: name + "-app",
			Method:      http.MethodPost,
			Path:        wire.Base + "/app/" + name,
			Summary:     summary,
			Tags:        []string{resource.KindApp.Plural},
			Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusForbidden, http.StatusGatewayTimeout},
		}, func(ctx context.Context, in *appActionInput) (*objectOutput[*resource.App], error) {
			return respond[*resource.App](s.runAppAction(ctx, running, in))
		})
	}
}

// runAppAction sets the App's spec.running and spec.cold (creating a
// running App when there is none; stopping a missing App is NotFound) and
// waits as asked. A start of a running App sets spec.cold alone, which
// restarts nothing; a start of a suspended App wakes it.
func (s *Server) runAppAction(ctx context.Context, running bool, in *appActionInput) (resource.Object, error) {
	timeout, err := actionTimeout(in.Timeout)
	if err != nil {
		return nil, err
	}
	key := resource.Key{Kind: resource.KindApp.Name, Name: resource.AppName}
	obj, err := s.store.Get(ctx, key)
	var changed resource.Object
	switch {
	case resource.IsNotFound(err) && running:
		a := resource.NewObject(resource.KindApp).(*resource.App)
		a.Metadata.Name = resource.AppName
		a.Spec.Running, a.Spec.Cold = true, in.Cold
		changed, err = s.create(ctx, resource.KindApp, "", a)
	case err != nil:
		return nil, err
	case obj.GetMeta().Terminating():
		return nil, resource.Errorf(resource.ReasonForbidden, "the App is being deleted; start it again once it is gone")
	case running && obj.(*resource.App).Spec.Running && obj.(*resource.App).Spec.Cold != in.Cold:
		// Its VM takes the change, and so tries a failed start again.
		changed, err = s.store.Patch(ctx, key, fmt.Appendf(nil, `{"spec":{"cold":%t}}`, in.Cold))
	case running && obj.(*resource.App).Suspended():
		// Woken: its VM resumes (boots, with cold); the start ends once
		// its engine answers.
		wake := resource.UnsuspendPatch
		if obj.(*resource.App).Spec.Cold != in.Cold {
			wake = fmt.Sprintf(`{"metadata":{"annotations":{%q:null}},"spec":{"cold":%t}}`, resource.AnnotationSuspended, in.Cold)
		}
		changed, err = s.store.Patch(ctx, key, []byte(wake))
		if err != nil || !in.Wait {
			return changed, err
		}
		return s.waitApp(ctx, changed.(*resource.App), timeout, wire.AppDone)
	case running && obj.(*resource.App).Spec.Running:
		if out, retried, err := s.retryFailedStart(ctx, obj.(*resource.App), in.Wait, timeout); retried || err != nil {
			return out, err
		}
		changed = obj
	default:
		changed, err = s.store.Patch(ctx, key, fmt.Appendf(nil, `{"spec":{"running":%t,"cold":%t}}`, running, in.Cold))
	}
	if err != nil || !in.Wait {
		return changed, err
	}
	return s.waitApp(ctx, changed.(*resource.App), timeout, wire.AppDone)
}

// retryFailedStart asks for the App's VM, whose start failed, to be
// started again, as 'vm start' does for any VM: a failed start is retried
// only on a change or a restart request, and a user who starts the App
// again has fixed the cause, or wants to hear that it is not fixed. With
// wait it answers once the App shows the new attempt's outcome. retried is
// false, and nothing is done, when the App's VM did not fail to start.
func (s *Server) retryFailedStart(ctx context.Context, app *resource.App, wait bool, timeout time.Duration) (out resource.Object, retried bool, err error) {
	key := resource.Key{Kind: resource.KindVM.Name, Namespace: app.Spec.Namespace, Name: resource.AppVMName}
	obj, err := s.store.Get(ctx, key)
	if resource.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if !startFailed(obj.(*resource.VM)) {
		return nil, false, nil
	}
	changed, err := s.store.Patch(ctx, key, []byte(annotate(resource.AnnotationRestartRequested)))
	if err != nil || !wait {
		return app, true, err
	}
	began := time.Now()
	settled, err := s.waitFor(ctx, key, timeout, changed.GetMeta().ResourceVersion, startSettled, "the App's vm to start again")
	if err != nil {
		return nil, true, err
	}
	if timeout > 0 {
		timeout = max(timeout-time.Since(began), time.Millisecond)
	}
	// The App mirrors its VM's Running condition: until it shows this
	// attempt's, its status is the failure before.
	attempt := meta.FindStatusCondition(settled.(*resource.VM).Status.Conditions, resource.VMRunning)
	seen := false
	out, err = s.waitApp(ctx, app, timeout, func(a *resource.App) bool {
		c := meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)
		seen = seen || c != nil && c.Status == attempt.Status && c.Reason == attempt.Reason && c.Message == attempt.Message
		return seen && wire.AppDone(a)
	})
	return out, true, err
}

// waitApp follows the App from the revision of its change until done
// (wire.AppDone, for most).
func (s *Server) waitApp(ctx context.Context, from *resource.App, timeout time.Duration, done func(*resource.App) bool) (resource.Object, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	rv, _ := parseRevision(from.Metadata.ResourceVersion)
	w, err := s.store.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindApp}, ResourceVersion: rv})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	last := from
	if done(last) {
		return last, nil
	}
	for {
		ev, err := w.Next(ctx)
		if deadlinePassed(ctx, err) {
			_, state := wire.AppSettled.Met(last.Status.Conditions, last.Metadata.Generation)
			return nil, resource.Errorf(resource.ReasonTimeout, "timed out after %s waiting for the App to settle; last seen: %s", timeout, state)
		}
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case store.Deleted:
			return nil, resource.Errorf(resource.ReasonNotFound, "the App was deleted while waiting for it")
		case store.Added, store.Modified:
			a := &resource.App{}
			if err := json.Unmarshal(ev.Object, a); err != nil {
				return nil, err
			}
			if last = a; done(a) {
				return a, nil
			}
		}
	}
}
