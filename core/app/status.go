package app

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
)

// pingTimeout bounds one call to the engine; bootPingTimeout one while
// its VM boots.
const (
	pingTimeout     = 3 * time.Second
	bootPingTimeout = 500 * time.Millisecond
)

// answerTrusted is how long an answer of the engine stands for it without
// asking again, while its VM boots and runs without a break (a VM that
// stops or fails forgets it): as long as an answer stands once the VM runs
// (engineRecheck), so that an answer that came while the VM booted settles
// the App as the VM turns Running. Lima's last check of the boot passed
// 3.4 s after dockerd answered in CI; asking again then cost 91 ms.
const answerTrusted = engineRecheck

// vmFailures are the VM's reasons that say its create, start or stop
// failed; Settled forwards them.
var vmFailures = resource.AppFailures[:3]

// engineState is what asking the engine found.
type engineState struct {
	probed  bool // the VM ran, so the engine was asked
	ready   bool
	message string
}

// current returns the VM's condition t when it speaks of the VM's current
// generation, else nil.
func current(vm *resource.VM, t string) *metav1.Condition {
	c := meta.FindStatusCondition(vm.Status.Conditions, t)
	if c == nil || !resource.ConditionCurrent(c, vm.Metadata.Generation) {
		return nil
	}
	return c
}

// runningCondition returns the Running condition of a VM that is not
// being deleted when it speaks of the VM's current spec, else nil.
func runningCondition(vm *resource.VM) *metav1.Condition {
	if vm == nil || vm.Metadata.Terminating() {
		return nil
	}
	return current(vm, resource.VMRunning)
}

// vmUp reports whether the VM runs its current spec.
func vmUp(vm *resource.VM) bool {
	c := runningCondition(vm)
	return c != nil && c.Status == metav1.ConditionTrue
}

// vmBooting reports whether the VM boots its current spec: its Running
// condition says Starting.
func vmBooting(vm *resource.VM) bool {
	c := runningCondition(vm)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == resource.ReasonStarting
}

// checkEngine asks the engine, through its forwarded socket, whether it
// answers, when the App's VM runs. It asks while the VM boots too, briefly:
// the engine often answers before Lima's last check of the boot passes,
// and the App then settles as the VM turns Running instead of a round trip
// through the guest later. An engine that does not answer a booting VM yet
// is only waited for.
func (c *Controller) checkEngine(ctx context.Context, app *resource.App, vm *resource.VM) engineState {
	booting := vmBooting(vm)
	if vm == nil || !wantRunning(app) || !vmUp(vm) && !booting {
		c.answered.forget()
		return engineState{}
	}
	if what, ok := c.answered.recent(app.Metadata.UID, time.Now()); ok && !booting {
		return engineState{probed: true, ready: true, message: what}
	}
	timeout := pingTimeout
	if booting {
		timeout = bootPingTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	what, err := c.opts.Engine.Ping(ctx, app.Spec.ContainerEngine.Name)
	if err == nil {
		c.answered.remember(app.Metadata.UID, what, time.Now())
		return engineState{probed: true, ready: true, message: what}
	}
	c.answered.forget()
	if booting {
		return engineState{}
	}
	return engineState{probed: true, message: err.Error()}
}

// lastAnswer is the engine's last answer to an App, by the App's UID.
type lastAnswer struct {
	mu   sync.Mutex
	uid  string
	what string
	at   time.Time
}

func (l *lastAnswer) remember(uid, what string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uid, l.what, l.at = uid, what, at
}

func (l *lastAnswer) forget() { l.remember("", "", time.Time{}) }

// recent returns the answer to the App uid when it came within
// answerTrusted before now.
func (l *lastAnswer) recent(uid string, now time.Time) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uid == "" || l.uid != uid || now.Sub(l.at) >= answerTrusted {
		return "", false
	}
	return l.what, true
}

// engineRetryAfter is how soon, at now, an engine of vm that did not answer
// is asked again: often while the VM has just begun to run (by its Running
// condition's transition, which has a resolution of a second), less often
// later.
func engineRetryAfter(vm *resource.VM, now time.Time) time.Duration {
	running := current(vm, resource.VMRunning)
	if running != nil && now.Sub(running.LastTransitionTime.Time) < engineStarting {
		return engineRetryStarting
	}
	return engineRetry
}

// templateCurrent reports whether the VM runs (or, stopped, will boot) the
// template copy it has now: the copy's revision is the one the VM last
// started with (or, stopped, took). The App reads the copy and never
// writes it.
func (c *Controller) templateCurrent(ctx context.Context, vm *resource.VM) (bool, error) {
	key := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: vm.Metadata.Namespace, Name: resource.TemplateName(vm.Metadata.Name)}
	obj, err := c.store.Get(ctx, key)
	if resource.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return obj.GetMeta().ResourceVersion == vm.Status.ObservedTemplateResourceVersion, nil
}

// errStale ends a status write whose App changed identity meanwhile.
var errStale = errors.New("the App was replaced")

// writeStatus sets the App's conditions from its VM, the engine and what
// blocks it, each stamped with the generation of the App this reconcile
// acted on. It reports whether the App is Settled running.
func (c *Controller) writeStatus(ctx context.Context, app *resource.App, vm *resource.VM, engine engineState, blocked *blockedError) (bool, error) {
	fresh := false
	if vm != nil {
		var err error
		if fresh, err = c.templateCurrent(ctx, vm); err != nil {
			return false, err
		}
	}
	gen := app.Metadata.Generation
	ok, reason, msg := settled(app, vm, fresh, engine, blocked)
	_, err := controller.UpdateStatus(ctx, c.store, resource.KeyOf(app), func(a *resource.App) (bool, error) {
		if a.Metadata.UID != app.Metadata.UID {
			return false, errStale
		}
		before := slices.Clone(a.Status.Conditions)
		conds := &a.Status.Conditions
		if vm != nil {
			resource.MirrorConditions(conds, gen, vm.Status.Conditions, resource.VMCreated, resource.VMRunning)
			if ok && reason == resource.ReasonSuspended {
				// The VM is stopped; the App, which should run, is
				// suspended.
				set(conds, gen, resource.AppRunning, false, resource.ReasonSuspended, msg)
			}
		} else {
			reason, msg := resource.ReasonCreating, "creating the VM"
			if blocked != nil {
				reason, msg = blocked.reason, blocked.Error()
			}
			meta.RemoveStatusCondition(conds, resource.AppRunning)
			set(conds, gen, resource.AppCreated, false, reason, msg)
		}
		set(conds, gen, resource.AppContainerEngineReady, engine.ready, engineReason(app, vm, engine), engineMessage(app, vm, engine))
		set(conds, gen, resource.AppSettled, ok, reason, msg)
		idleSince := a.Status.IdleSince
		if !app.Spec.Running || app.Suspended() {
			// Its idle time ended with it: a start or a wake counts anew.
			a.Status.IdleSince = nil
		}
		return !reflect.DeepEqual(before, a.Status.Conditions) || idleSince != a.Status.IdleSince, nil
	})
	return ok && reason == resource.ReasonRunning, err
}

func set(conds *[]metav1.Condition, gen int64, t string, ok bool, reason, msg string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	resource.SetCondition(conds, gen, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg})
}

func engineReason(app *resource.App, vm *resource.VM, e engineState) string {
	switch {
	case e.ready:
		return resource.ReasonConnected
	case e.probed:
		return resource.ReasonConnecting
	case app.Suspended() && vm != nil && vmUp(vm):
		return resource.ReasonSuspending
	case app.Suspended():
		return resource.ReasonSuspended
	case !app.Spec.Running && vm != nil && vmUp(vm):
		return resource.ReasonStopping
	case !app.Spec.Running:
		return resource.ReasonStopped
	}
	return resource.ReasonWaiting
}

func engineMessage(app *resource.App, vm *resource.VM, e engineState) string {
	switch {
	case e.probed:
		return e.message
	case app.Suspended() && vm != nil && vmUp(vm):
		return "the App is being suspended: its VM saves its state and stops"
	case app.Suspended():
		return suspendedMessage(app, vm)
	case !app.Spec.Running && vm != nil && vmUp(vm):
		return "the VM is stopping"
	case !app.Spec.Running:
		return "the VM is stopped"
	}
	return "waiting for the VM to run"
}

// settled decides the Settled condition: True only when the VM runs its
// current template and is in the terminal phase the App asks for, and the
// engine answered for this generation; False with the reason of what is
// still on its way or failed otherwise.
func settled(app *resource.App, vm *resource.VM, fresh bool, engine engineState, blocked *blockedError) (bool, string, string) {
	switch {
	case app.Metadata.Terminating():
		return false, resource.ReasonDeleting, "the App is being deleted"
	case blocked != nil:
		return false, blocked.reason, blocked.Error()
	case vm == nil:
		return false, resource.ReasonCreating, "creating the VM"
	case vm.Metadata.Terminating():
		return false, resource.ReasonDeleting, "the VM is being deleted; it is made anew once it is gone"
	}
	for _, t := range []string{resource.VMCreated, resource.VMRunning} {
		if c := current(vm, t); c != nil && slices.Contains(vmFailures, c.Reason) {
			return false, c.Reason, c.Message
		}
	}
	switch c := current(vm, resource.VMCreated); {
	case c == nil && meta.FindStatusCondition(vm.Status.Conditions, resource.VMCreated) != nil:
		// Said of an older spec (the App just changed it: a stop, a size).
		return false, resource.ReasonReconciling, "waiting for the VM's controller to take the change"
	case c == nil || c.Status != metav1.ConditionTrue:
		return false, reasonOr(c, resource.ReasonCreating), messageOr(c, "creating the VM")
	}
	running := current(vm, resource.VMRunning)
	if running == nil {
		return false, resource.ReasonReconciling, "waiting for the VM's controller to take the change"
	}
	if app.Suspended() {
		switch {
		case running.Status == metav1.ConditionTrue:
			return false, resource.ReasonSuspending, "the App is being suspended: its VM saves its state and stops"
		case running.Reason == resource.ReasonStopped:
			return true, resource.ReasonSuspended, suspendedMessage(app, vm)
		}
		return false, running.Reason, running.Message
	}
	if !app.Spec.Running {
		if running.Status == metav1.ConditionTrue {
			return false, resource.ReasonStopping, "the VM is stopping"
		}
		return true, resource.ReasonStopped, "the VM is stopped"
	}
	switch {
	case running.Reason == resource.ReasonStopped:
		return false, resource.ReasonReconciling, "the VM is to start"
	case running.Status != metav1.ConditionTrue:
		return false, running.Reason, running.Message
	case !fresh:
		return false, resource.ReasonRestarting, "the VM restarts into its new template"
	case !engine.ready:
		return false, resource.ReasonConnecting, "the VM runs; waiting for " + app.Spec.ContainerEngine.Name + " to answer: " + engine.message
	}
	return true, resource.ReasonRunning, "the VM runs and " + app.Spec.ContainerEngine.Name + " answers"
}

// suspendedMessage says why the App is suspended, how its VM stopped (the
// VM's Running message, when there is one: whether its state was saved)
// and what wakes it.
func suspendedMessage(app *resource.App, vm *resource.VM) string {
	how := "its VM is stopped"
	if c := runningCondition(vm); c != nil && c.Status == metav1.ConditionFalse && c.Message != "" {
		how += " (" + c.Message + ")"
	}
	engine := resource.EngineTitle(app.Spec.ContainerEngine.Name)
	return "suspended after " + app.Spec.SuspendWhenIdle + " without a " + engine + " client or a running container: " +
		how + "; the next " + engine + " request, or a start, wakes it"
}

func reasonOr(c *metav1.Condition, fallback string) string {
	if c == nil || c.Reason == "" {
		return fallback
	}
	return c.Reason
}

func messageOr(c *metav1.Condition, fallback string) string {
	if c == nil {
		return fallback
	}
	return c.Message
}
