package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"k8s.io/apimachinery/pkg/fields"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// defaultActionTimeout bounds a waiting action when the request names no
// timeout: a first boot under emulation takes minutes.
const defaultActionTimeout = 10 * time.Minute

type actionInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	Wait      bool   `query:"wait" doc:"Answer once the action has taken effect (or failed) rather than at once."`
	Timeout   string `query:"timeout" doc:"How long to wait, e.g. 90s or 10m; 0 waits forever. Default 10m." example:"10m"`
}

// coldActionInput is the input of a start or a stop, which also sets
// spec.cold: actionInput's fields (the API's schema does not flatten an
// embedded struct) and cold.
type coldActionInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	Wait      bool   `query:"wait" doc:"Answer once the action has taken effect (or failed) rather than at once."`
	Timeout   string `query:"timeout" doc:"How long to wait, e.g. 90s or 10m; 0 waits forever. Default 10m." example:"10m"`
	Cold      bool   `query:"cold" doc:"Set spec.cold: a stop shuts the VM down fully rather than saving its state, a start boots it fully rather than resuming a saved state. Default false: a stop saves, a start resumes."`
}

// vmAction is one of the VM convenience endpoints: a change to the VM, and
// the state that says it took effect.
type vmAction struct {
	name    string
	summary string
	// takesCold says whether the action takes ?cold= (start and stop).
	takesCold bool
	// change returns the merge patch to apply, given the VM before and
	// ?cold=.
	change func(before *resource.VM, cold bool) string
	// settled reports whether the VM reached the action's end, given the
	// VM before the change.
	settled func(before, now *resource.VM) bool
	// refuse, when set, returns why the action cannot be done on the VM
	// as it is (a Conflict), or nil.
	refuse func(vm *resource.VM) error
}

var vmActions = []vmAction{
	{
		name: "start",
		summary: "Start a VM: set spec.running (and spec.cold to ?cold=), and with wait=true answer once it runs or its start failed. " +
			"A VM whose state a stop saved resumes it unless cold=true. A VM whose start failed is tried again.",
		takesCold: true,
		change: func(before *resource.VM, cold bool) string {
			if startFailed(before) {
				// A failed start is tried again only on a change or a
				// restart request: ask for one, as a user who fixed the
				// cause means.
				return annotateAndSet(resource.AnnotationRestartRequested, map[string]any{"cold": cold})
			}
			return fmt.Sprintf(`{"spec":{"running":true,"cold":%t}}`, cold)
		},
		settled: func(_, now *resource.VM) bool { return startSettled(now) },
	},
	{
		name: "stop",
		summary: "Stop a VM: clear spec.running (and set spec.cold to ?cold=), and with wait=true answer once it stopped. " +
			"A running QEMU VM's state is saved, for the next start to resume, unless cold=true.",
		takesCold: true,
		change: func(_ *resource.VM, cold bool) string {
			return fmt.Sprintf(`{"spec":{"running":false,"cold":%t}}`, cold)
		},
		settled: func(_, now *resource.VM) bool {
			return conditionSettled(now, resource.VMRunning, resource.ReasonStopped, resource.ReasonStopFailed)
		},
	},
	{
		name: "restart",
		summary: "Restart a VM that should run, and with wait=true answer once it runs again (status.restartCount went up) or failed. " +
			"A stopped VM is refused (409): start it instead.",
		change: func(*resource.VM, bool) string { return annotate(resource.AnnotationRestartRequested) },
		// A restart of a stopped VM was taken and dropped, and answered
		// "restarted": the VM stayed stopped.
		refuse: func(vm *resource.VM) error {
			if vm.Spec.Running {
				return nil
			}
			return resource.Errorf(resource.ReasonConflict, "vm %s is stopped, so there is nothing to restart: start it (paddock vm start %s)", vm.Metadata.Name, vm.Metadata.Name)
		},
		settled: func(before, now *resource.VM) bool {
			if _, pending := now.Metadata.Annotations[resource.AnnotationRestartRequested]; pending {
				return false
			}
			return now.Status.RestartCount > before.Status.RestartCount ||
				conditionSettled(now, resource.VMRunning, resource.ReasonStartFailed, resource.ReasonStopped)
		},
	},
	{
		name:    "reset",
		summary: "Make a VM's machine anew from its template (its disk is lost), and with wait=true answer once that is done",
		change:  func(*resource.VM, bool) string { return annotate(resource.AnnotationResetRequested) },
		settled: func(_, now *resource.VM) bool {
			if _, pending := now.Metadata.Annotations[resource.AnnotationResetRequested]; pending {
				return false
			}
			if !now.Spec.Running {
				return conditionSettled(now, resource.VMCreated, resource.ReasonCreated, resource.ReasonCreateFailed)
			}
			return conditionSettled(now, resource.VMRunning, startEnds...)
		},
	},
}

// startSettled reports whether a start of vm ended, running or failed,
// once the restart it may have asked for (startFailed) was taken.
func startSettled(vm *resource.VM) bool {
	if _, pending := vm.Metadata.Annotations[resource.AnnotationRestartRequested]; pending {
		return false
	}
	return conditionSettled(vm, resource.VMRunning, startEnds...)
}

// startEnds are the reasons of a Running condition that end a start: one
// of resource.VMStartedReasons, or StartFailed.
var startEnds = append(slices.Clone(resource.VMStartedReasons), resource.ReasonStartFailed)

// startFailed reports whether vm should run and its last start, for its
// current generation, failed.
func startFailed(vm *resource.VM) bool {
	return vm.Spec.Running && conditionSettled(vm, resource.VMRunning, resource.ReasonStartFailed)
}

func annotate(a string) string { return annotateAndSet(a, nil) }

// annotateAndSet returns the merge patch that sets annotation a to now
// and, when spec is not empty, those spec fields.
func annotateAndSet(a string, spec map[string]any) string {
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{a: time.Now().UTC().Format(time.RFC3339Nano)}}}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	data, _ := json.Marshal(patch)
	return string(data)
}

// conditionSettled reports whether condition t carries one of reasons and
// is current for the VM's generation, by the rule every wait shares
// (resource.ConditionCurrent).
func conditionSettled(vm *resource.VM, t string, reasons ...string) bool {
	met, _ := wire.ConditionWant{Type: t, Reasons: reasons}.Met(vm.Status.Conditions, vm.Metadata.Generation)
	return met
}

func (s *Server) registerVMActions() {
	k := resource.KindVM
	for _, a := range vmActions {
		op := huma.Operation{
			OperationID: a.name + "-vm",
			Method:      http.MethodPost,
			Path:        wire.Base + "/namespaces/{namespace}/vms/{name}/" + a.name,
			Summary:     a.summary,
			Tags:        []string{k.Plural},
			Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusGatewayTimeout},
		}
		if a.refuse != nil {
			op.Errors = append(op.Errors, http.StatusConflict)
		}
		if a.takesCold {
			huma.Register(s.api, op, func(ctx context.Context, in *coldActionInput) (*objectOutput[*resource.VM], error) {
				return respond[*resource.VM](s.runAction(ctx, a, &actionInput{in.Namespace, in.Name, in.Wait, in.Timeout}, in.Cold))
			})
			continue
		}
		huma.Register(s.api, op, func(ctx context.Context, in *actionInput) (*objectOutput[*resource.VM], error) {
			return respond[*resource.VM](s.runAction(ctx, a, in, false))
		})
	}
}

// actionTimeout reads an action's ?timeout=, defaultActionTimeout when it
// is empty.
func actionTimeout(param string) (time.Duration, error) {
	if param == "" {
		return defaultActionTimeout, nil
	}
	d, err := time.ParseDuration(param)
	if err != nil || d < 0 {
		return 0, resource.Errorf(resource.ReasonBadRequest, "timeout %q is not a duration: write it like 90s or 10m", param)
	}
	return d, nil
}

func (s *Server) runAction(ctx context.Context, a vmAction, in *actionInput, cold bool) (resource.Object, error) {
	timeout, err := actionTimeout(in.Timeout)
	if err != nil {
		return nil, err
	}
	key := resource.Key{Kind: resource.KindVM.Name, Namespace: in.Namespace, Name: in.Name}
	obj, err := s.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	before := obj.(*resource.VM)
	if before.Metadata.Terminating() {
		return nil, resource.Errorf(resource.ReasonForbidden, "vm %s is being deleted", in.Name)
	}
	if a.refuse != nil {
		if err := a.refuse(before); err != nil {
			return nil, err
		}
	}
	changed, err := s.store.Patch(ctx, key, []byte(a.change(before, cold)))
	if err != nil || !in.Wait {
		return changed, err
	}
	return s.waitFor(ctx, key, timeout, changed.GetMeta().ResourceVersion, func(now *resource.VM) bool { return a.settled(before, now) },
		fmt.Sprintf("vm %s to %s", in.Name, a.name))
}

// waitFor watches the VM at key from revision rv until settled holds, and
// returns it then; Timeout after timeout (0: never).
func (s *Server) waitFor(ctx context.Context, key resource.Key, timeout time.Duration, rv string, settled func(*resource.VM) bool, what string) (resource.Object, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	current, err := s.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if settled(current.(*resource.VM)) {
		return current, nil
	}
	from, _ := parseRevision(rv)
	w, err := s.store.Watch(ctx, store.WatchOptions{
		ListOptions:     store.ListOptions{Kind: resource.KindVM, Namespace: key.Namespace, Fields: fields.OneTermEqualSelector("metadata.name", key.Name)},
		ResourceVersion: from,
	})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	last := current
	for {
		ev, err := w.Next(ctx)
		if deadlinePassed(ctx, err) {
			return nil, resource.Errorf(resource.ReasonTimeout, "timed out after %s waiting for %s; it is now: %s", timeout, what, summary(last.(*resource.VM)))
		}
		if err != nil {
			return nil, err
		}
		switch ev.Type {
		case store.Deleted:
			return nil, resource.Errorf(resource.ReasonNotFound, "vm %s was deleted while waiting for it", key.Name)
		case store.Added, store.Modified:
			vm := &resource.VM{}
			if err := json.Unmarshal(ev.Object, vm); err != nil {
				return nil, err
			}
			last = vm
			if settled(vm) {
				return vm, nil
			}
		}
	}
}

// deadlinePassed reports whether a wait's watch failed because the wait's
// own deadline passed: with the deadline's error, or with Canceled from
// the watch that the deadline stopped.
func deadlinePassed(ctx context.Context, err error) bool {
	return err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// summary says what a VM's conditions say, for a timeout's message.
func summary(vm *resource.VM) string {
	out := ""
	for _, c := range vm.Status.Conditions {
		if out != "" {
			out += "; "
		}
		out += fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason)
		if c.Message != "" {
			out += ": " + c.Message
		}
	}
	if out == "" {
		return "no conditions yet"
	}
	return out
}
