package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Requeue delays: what no watch reports (the engine answering) is looked
// at again after these.
const (
	// engineRetryStarting is how soon an engine that did not answer yet is
	// asked again in the first engineStarting after its VM began to run:
	// it is starting too, and the App settles as soon as it answers.
	// (Docker's socket, which systemd holds, keeps a call waiting until
	// dockerd answers, up to pingTimeout; containerd's socket appears only
	// once containerd runs, so its calls fail at once until then.)
	engineRetryStarting = 200 * time.Millisecond
	engineStarting      = 30 * time.Second
	// engineRetryBooting is how soon the engine is asked again while its
	// VM boots (see checkEngine), when it did not answer yet.
	engineRetryBooting = time.Second
	// engineRetry is how soon it is asked again after that: an engine
	// that died inside a running VM costs the guest an SSH channel per
	// call.
	engineRetry = time.Second
	// engineRecheck is how often an engine that answered is asked again,
	// so that an engine that died inside a running VM is noticed.
	engineRecheck = 30 * time.Second
	// templateRetry is how soon a template that could not be rendered (no
	// image yet) is tried again.
	templateRetry = 10 * time.Second
	// pendingRetry is how soon a template that is on its way (its image
	// downloading) is rendered again, which also refreshes the progress
	// that the App's conditions show.
	pendingRetry = time.Second
	// goneRetry is how soon a deletion waited for is looked at again.
	goneRetry = time.Second
)

// Template renders the complete Lima template of the App's VM, for this
// instance, as the App's spec asks: its container engine
// (resource.EngineMoby or EngineContainerd) and the host folders it
// shares. The sizes are the VM's params, not the template's.
type Template interface {
	Render(spec resource.AppSpec) ([]byte, error)
}

// PendingError is a Template's answer while something the template needs is
// on its way (its guest image downloading): the App's Created and Settled
// conditions say Reason and Message, and the template is rendered again
// in a second.
type PendingError struct {
	Reason, Message string
}

func (e *PendingError) Error() string { return e.Message }

// Engine reaches a container engine through the socket its VM forwards to
// the host: Docker's /_ping for moby, the version call for containerd. It
// returns what answered, for the condition's message.
type Engine interface {
	Ping(ctx context.Context, engine string) (string, error)
}

// HostContext is the host's pointer at the engine: a docker context named
// after the instance. Use makes it (current only where the current one is
// missing or unreachable); Remove takes back what Use did.
type HostContext interface {
	Use(ctx context.Context, engine string) error
	Remove(ctx context.Context) error
}

// Options are the controller's parts.
type Options struct {
	Template Template
	Engine   Engine
	// Context, when set, keeps the host's docker context.
	Context HostContext
	Logger  *slog.Logger
	// Metrics counts and times the reconciles; nil records nothing.
	Metrics *metrics.Metrics
	// Clients and Containers, when both are set, let an App whose
	// spec.suspendWhenIdle is set suspend: Clients says what the
	// engine's clients on the host do (on the daemon's Docker and
	// containerd sockets, which also wake the App through Wake),
	// Containers whether a container runs. Without them the App never
	// suspends.
	Clients    func() ClientActivity
	Containers Containers
	// Sessions, when set, keeps an App that someone works in (a login on
	// a terminal, a command of 'paddock shell') from being suspended; it
	// is asked once the App was idle for spec.suspendWhenIdle.
	Sessions Sessions
	// Now is the clock of the idle time; time.Now when nil.
	Now func() time.Time
	// IdleRecheck is how often an App that may become idle is looked at
	// again; 30 s when zero.
	IdleRecheck time.Duration
}

// Controller reconciles the App.
type Controller struct {
	store store.Store
	opts  Options
	log   *slog.Logger
	ctrl  *controller.Controller
	// answered is the engine's last answer.
	answered lastAnswer
	// idle is when the App was last busy.
	idle idleClock
}

// New returns the App controller.
func New(st store.Store, opts Options) *Controller {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Controller{store: st, opts: opts, log: opts.Logger.With("controller", "app")}
	apps := controller.Lifecycle[*resource.App]{Store: st, Finalize: c.finalize, Live: c.reconcile}
	c.ctrl = controller.New("app", st, apps.Reconcile, controller.Options{Logger: opts.Logger, Metrics: opts.Metrics}).
		Watches(resource.KindApp, controller.Self).
		Watches(resource.KindVM, controller.ControllerOwner(resource.KindApp)).
		Watches(resource.KindConfigMap, controller.ControllerOwner(resource.KindApp))
	return c
}

// Run reconciles until ctx ends.
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

func vmKey(app *resource.App) resource.Key {
	return resource.Key{Kind: resource.KindVM.Name, Namespace: app.Spec.Namespace, Name: resource.AppVMName}
}

// reconcile brings a live App, which carries its cleanup finalizer, to
// its spec: its template, its VM, its engine's context, its status.
func (c *Controller) reconcile(ctx context.Context, app *resource.App) (controller.Result, error) {
	if err := c.dropStaleSuspension(ctx, app); err != nil {
		return controller.Result{}, err
	}
	src, err := c.ensureTemplate(ctx, app)
	var vm *resource.VM
	if err == nil {
		vm, err = c.ensureVM(ctx, app, src)
	}
	var blocked *blockedError
	if errors.As(err, &blocked) {
		// Retrying at once will not help (no image yet, a foreign VM in the
		// way, a spec the driver refuses): recorded in status and looked
		// at again later, or when the App changes.
		if vm == nil {
			if vm, err = c.ownedVM(ctx, app); err != nil && !errors.As(err, new(*blockedError)) {
				return controller.Result{}, err
			}
		}
		retry := templateRetry
		if errors.As(blocked, new(*PendingError)) {
			retry = pendingRetry
		}
		_, err := c.writeStatus(ctx, app, vm, engineState{}, blocked)
		return controller.Result{RequeueAfter: retry}, err
	}
	if err != nil {
		return controller.Result{}, err
	}
	if err := c.dropOldTemplates(ctx, app, src.Metadata.Name); err != nil {
		return controller.Result{}, err
	}
	engine := c.checkEngine(ctx, app, vm)
	if err := c.keepContext(ctx, app, engine); err != nil {
		return controller.Result{}, err
	}
	up, err := c.writeStatus(ctx, app, vm, engine, nil)
	if err != nil {
		return controller.Result{}, err
	}
	recheck := engineRecheck
	if up && c.suspends(app) {
		after, err := c.checkIdle(ctx, app)
		if err != nil || after == 0 {
			return controller.Result{}, err
		}
		recheck = min(recheck, after)
	} else {
		c.idle.forget()
	}
	switch {
	case vm == nil || vm.Metadata.Terminating():
		return controller.Result{RequeueAfter: goneRetry}, nil
	case engine.probed && !engine.ready:
		return controller.Result{RequeueAfter: engineRetryAfter(vm, time.Now())}, nil
	case !engine.ready && wantRunning(app) && vmBooting(vm):
		return controller.Result{RequeueAfter: engineRetryBooting}, nil
	case engine.ready:
		return controller.Result{RequeueAfter: recheck}, nil
	}
	return controller.Result{}, nil
}

// ownedVM returns the App's VM, nil when it does not exist. A VM of that
// name that the App does not own blocks the App.
func (c *Controller) ownedVM(ctx context.Context, app *resource.App) (*resource.VM, error) {
	obj, err := c.store.Get(ctx, vmKey(app))
	if resource.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vm := obj.(*resource.VM)
	if ref, ok := vm.Metadata.OwnerOfKind(resource.KindApp.Name); !ok || ref.UID != app.Metadata.UID {
		if ok && vm.Metadata.Terminating() {
			// An earlier App's VM on its way out: let it go.
			return nil, controller.ReleaseOwned(ctx, c.store, vmKey(app), resource.KindApp)
		}
		return nil, &blockedError{resource.ReasonVMNameTaken, fmt.Errorf("%s exists and is not the App's: delete it, or delete the App and choose another spec.namespace", resource.Describe(vmKey(app)))}
	}
	return vm, nil
}

// finalize deletes the App's VM, waits until the VM's own cleanup let it
// go, removes the App's templates and the host's docker context, and then
// lets the App go.
func (c *Controller) finalize(ctx context.Context, app *resource.App) (controller.Result, error) {
	if !app.Metadata.HasFinalizer(resource.FinalizerCleanup) {
		return controller.Result{}, nil
	}
	vm, err := c.ownedVM(ctx, app)
	if err != nil && !errors.As(err, new(*blockedError)) {
		return controller.Result{}, err
	}
	if vm != nil {
		if !vm.Metadata.Terminating() {
			if err := controller.DeleteOwned(ctx, c.store, vmKey(app), app); err != nil {
				return controller.Result{}, err
			}
		}
		if err := controller.ReleaseOwned(ctx, c.store, vmKey(app), resource.KindApp); err != nil {
			return controller.Result{}, err
		}
		// The VM's cleanup runs; its deletion wakes this controller too.
		_, err := c.writeStatus(ctx, app, vm, engineState{}, nil)
		return controller.Result{RequeueAfter: goneRetry}, err
	}
	remaining, err := c.deleteTemplates(ctx, app, "")
	if err != nil {
		return controller.Result{}, err
	}
	if remaining > 0 {
		return controller.Result{RequeueAfter: goneRetry}, nil
	}
	if c.opts.Context != nil {
		if err := c.opts.Context.Remove(ctx); err != nil {
			return controller.Result{}, fmt.Errorf("remove the docker context: %w", err)
		}
	}
	return controller.Result{}, controller.RemoveFinalizer(ctx, c.store, resource.KeyOf(app), resource.FinalizerCleanup)
}

// keepContext points the host's docker context at a running engine and
// takes it back once the App is stopped.
func (c *Controller) keepContext(ctx context.Context, app *resource.App, engine engineState) error {
	if c.opts.Context == nil {
		return nil
	}
	switch {
	case engine.ready:
		return c.opts.Context.Use(ctx, app.Spec.ContainerEngine.Name)
	case !app.Spec.Running:
		return c.opts.Context.Remove(ctx)
	}
	return nil
}
