package vm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// soon requeues after a step whose effect no watch reports.
const soon = 10 * time.Millisecond

// Options tune the controller.
type Options struct {
	// StopGrace bounds a graceful stop before it is forced; 60 s when zero.
	StopGrace time.Duration
	Logger    *slog.Logger
	// Metrics counts and times the reconciles; nil records nothing.
	Metrics *metrics.Metrics
}

// Controller reconciles VMs.
type Controller struct {
	store  store.Store
	driver Driver
	grace  time.Duration
	log    *slog.Logger
	ctrl   *controller.Controller

	mu    sync.Mutex
	boots map[string]*boot      // boots in flight or finished, by VM name
	exits map[string]*exitWatch // waits for running machines to stop, by VM name
}

// New returns the VM controller.
func New(st store.Store, d Driver, opts Options) *Controller {
	if opts.StopGrace <= 0 {
		opts.StopGrace = 60 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Controller{store: st, driver: d, grace: opts.StopGrace, log: opts.Logger.With("controller", "vm"),
		boots: map[string]*boot{}, exits: map[string]*exitWatch{}}
	vms := controller.Lifecycle[*resource.VM]{
		Store:    st,
		Gone:     func(key resource.Key) { c.forget(key.Name) },
		Finalize: c.finalize,
		Live:     c.reconcile,
	}
	c.ctrl = controller.New("vm", st, vms.Reconcile, controller.Options{Workers: 4, Logger: opts.Logger, Metrics: opts.Metrics}).
		Watches(resource.KindVM, controller.Self).
		Watches(resource.KindConfigMap, controller.ControllerOwner(resource.KindVM)).
		Watches(resource.KindConfigMap, c.templateUsers)
	return c
}

// templateUsers maps a change of a ConfigMap to the VMs that name it as
// their template, so that a VM whose template was missing goes on once it
// is there. A VM's own template copy is left to the owner mapper.
func (c *Controller) templateUsers(ev store.Event) ([]resource.Key, error) {
	if ev.Labels[resource.LabelVM] != "" {
		return nil, nil
	}
	objs, _, err := c.store.List(context.Background(), store.ListOptions{Kind: resource.KindVM, Namespace: ev.Key.Namespace})
	if err != nil {
		return nil, fmt.Errorf("find the VMs that use template %s: %w", ev.Key, err)
	}
	var keys []resource.Key
	for _, obj := range objs {
		if obj.(*resource.VM).Spec.TemplateRef == ev.Key.Name {
			keys = append(keys, resource.KeyOf(obj))
		}
	}
	return keys, nil
}

// Run reconciles until ctx ends, and returns once the boots and running
// machines it followed are let go. Machines keep running: Shutdown stops
// them.
func (c *Controller) Run(ctx context.Context) { c.ctrl.Run(ctx) }

// Panics is how many panics the controller recovered from.
func (c *Controller) Panics() int64 { return c.ctrl.Panics() }

// Shutdown ends every running machine within bound, all at once. A
// machine the controller would save on a stop (see stop) is saved, so that
// the next daemon resumes it; the others, and any whose save fails, shut
// down gracefully, and what does not stop in time is killed. Call it after
// Run returned, with the store still open.
func (c *Controller) Shutdown(ctx context.Context, bound time.Duration) error {
	names, err := c.driver.Running()
	if err != nil || len(names) == 0 {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	grace := min(c.grace, bound*3/4)
	saver, canSave := c.driver.(Saver)
	save := map[string]bool{}
	if canSave {
		if save, err = c.savable(ctx); err != nil {
			c.log.Warn("cannot tell which VMs to save; shutting them all down", "err", err)
		}
	}
	var toSave, toStop []string
	for _, n := range names {
		if save[n] {
			toSave = append(toSave, n)
		} else {
			toStop = append(toStop, n)
		}
	}
	c.log.Info("ending VMs", "saving", toSave, "stopping", toStop, "grace", grace)
	errs := make([]error, len(toSave)+1)
	var wg sync.WaitGroup
	for i, n := range toSave {
		wg.Go(func() {
			// A save leaves time for the shutdown that follows a failure.
			saveCtx, cancel := context.WithTimeout(ctx, bound/2)
			defer cancel()
			err := saver.Save(saveCtx, n)
			if err == nil {
				return
			}
			c.log.Warn("cannot save the VM's state; shutting it down", "vm", n, "err", err)
			errs[i] = c.driver.Stop(ctx, n, min(grace, bound/4))
		})
	}
	if len(toStop) > 0 {
		errs[len(toSave)] = c.driver.StopAll(ctx, toStop, grace)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// savable reports, by machine name, whether a stop would save the VM's
// machine: the VM asks neither for cold stops nor for its own deletion.
func (c *Controller) savable(ctx context.Context) (map[string]bool, error) {
	objs, _, err := c.store.List(ctx, store.ListOptions{Kind: resource.KindVM})
	if err != nil {
		return nil, err
	}
	save := map[string]bool{}
	for _, obj := range objs {
		vm := obj.(*resource.VM)
		save[vm.Metadata.Name] = !vm.Spec.Cold && vm.Metadata.DeletionTimestamp == nil
	}
	return save, nil
}

// reconcile brings a live VM, which carries its cleanup finalizer, to its
// spec: its template copy, its machine, its running state.
func (c *Controller) reconcile(ctx context.Context, vm *resource.VM) (controller.Result, error) {
	tmpl, err := c.ensureTemplate(ctx, vm)
	if err != nil {
		if resource.ReasonOf(err) == resource.ReasonInvalid {
			// Tried again once the VM or its template copy changes.
			return controller.Result{}, controller.Terminal(vm, resource.VMCreated, resource.ReasonCreateFailed, err)
		}
		return controller.Result{}, err
	}
	inst, err := c.driver.Inspect(vm.Metadata.Name)
	if err != nil {
		return controller.Result{}, err
	}
	if done, res, err := c.ensureMachine(ctx, vm, tmpl, inst); done || err != nil {
		return res, err
	}
	return c.ensureRunning(ctx, vm, tmpl, inst)
}

// ensureMachine creates the VM's machine when it has none, recreates it on
// a reset, and clears up after a crash between creating a machine and
// recording it. inst is what the driver reports on the machine; done says
// the pass ends here.
func (c *Controller) ensureMachine(ctx context.Context, vm *resource.VM, tmpl *resource.ConfigMap, inst Instance) (bool, controller.Result, error) {
	name := vm.Metadata.Name
	pending, err := c.pending(name)
	if err != nil {
		return true, controller.Result{}, err
	}
	created := meta.IsStatusConditionTrue(vm.Status.Conditions, resource.VMCreated)
	_, reset := vm.Metadata.Annotations[resource.AnnotationResetRequested]

	switch {
	case inst.Exists && pending && !created:
		c.log.Warn("removing a machine whose creation was never recorded", "vm", name)
		return true, controller.Result{RequeueAfter: soon}, c.driver.Delete(ctx, name)
	case inst.Exists && pending:
		return true, controller.Result{RequeueAfter: soon}, c.driver.Commit(name)
	case inst.Exists && reset:
		c.cancelBoot(name)
		if err := c.driver.Delete(ctx, name); err != nil {
			return true, controller.Result{}, err
		}
		if err := c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			setCond(st, gen, resource.VMCreated, false, resource.ReasonPending, "reset: the machine is made anew")
			setCond(st, gen, resource.VMRunning, false, resource.ReasonReconciling, "reset")
		}); err != nil {
			return true, controller.Result{}, err
		}
		return true, controller.Result{RequeueAfter: soon}, c.dropAnnotation(ctx, vm, resource.AnnotationResetRequested)
	case inst.Exists:
		// Stamp Created for the current generation, as every condition is.
		return false, controller.Result{}, c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			setCond(st, gen, resource.VMCreated, true, resource.ReasonCreated, "the machine exists")
		})
	}

	if reset {
		if err := c.dropAnnotation(ctx, vm, resource.AnnotationResetRequested); err != nil {
			return true, controller.Result{}, err
		}
	}
	if err := c.driver.Create(ctx, name, []byte(tmpl.Data[resource.TemplateKey])); err != nil {
		// Reported, and retried with backoff: the host may be short of
		// disk for a while.
		return true, controller.Result{}, errors.Join(err, c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			setCond(st, gen, resource.VMCreated, false, resource.ReasonCreateFailed, err.Error())
		}))
	}
	if err := c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
		st.TemplateConfigMap = tmpl.Metadata.Name
		st.ObservedTemplateResourceVersion = tmpl.Metadata.ResourceVersion
		setCond(st, gen, resource.VMCreated, true, resource.ReasonCreated, "the machine exists")
	}); err != nil {
		return true, controller.Result{}, err
	}
	// Recorded: only now is the machine no longer a crash's leftover.
	return true, controller.Result{RequeueAfter: soon}, c.driver.Commit(name)
}

// ensureRunning starts, stops and restarts the machine as the VM asks.
// status.restartNeeded is true exactly while the machine runs an older
// template copy than the VM's (until the restart that follows stops it).
// inst is what the driver reports on the machine, which exists.
func (c *Controller) ensureRunning(ctx context.Context, vm *resource.VM, tmpl *resource.ConfigMap, inst Instance) (controller.Result, error) {
	name := vm.Metadata.Name
	templateRV := tmpl.Metadata.ResourceVersion
	drift := vm.Status.ObservedTemplateResourceVersion != templateRV
	_, restart := vm.Metadata.Annotations[resource.AnnotationRestartRequested]

	if b := c.bootOf(name); b != nil {
		switch {
		case !b.done && vm.Spec.Running:
			return controller.Result{}, nil // the boot enqueues the VM when it ends
		case !b.done:
			c.cancelBoot(name) // and the machine is stopped below
		case b.err != nil:
			if err := c.driver.Stop(ctx, name, 0); err != nil {
				return controller.Result{}, err // the failed boot is kept for the retry
			}
			c.cancelBoot(name)
			// Tried again once the VM or its template changes, or on a
			// restart request.
			return controller.Result{}, controller.Terminal(vm, resource.VMRunning, resource.ReasonStartFailed, b.err)
		default:
			c.cancelBoot(name) // booted: reported below, as any running machine is
		}
	}

	switch {
	case !vm.Spec.Running:
		how := stoppedMessage(inst, vm.Spec.Cold)
		if c := meta.FindStatusCondition(vm.Status.Conditions, resource.VMRunning); !inst.Saved && c != nil && c.Reason == resource.ReasonStopped {
			how = c.Message // how the machine stopped, said when it did
		}
		if inst.HostAgentAlive || inst.Running {
			var err error
			if how, err = c.stop(ctx, vm, inst); err != nil {
				return controller.Result{}, errors.Join(err, c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
					setRunning(st, gen, false, resource.ReasonStopFailed, err.Error())
				}))
			}
		} else if inst.Saved && vm.Spec.Cold {
			if err := c.discard(name, coldAsked); err != nil {
				return controller.Result{}, err
			}
			how = stoppedMessage(Instance{}, true)
		}
		if err := c.stopped(ctx, vm, tmpl); err != nil {
			return controller.Result{}, err
		}
		return controller.Result{}, c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			setRunning(st, gen, false, resource.ReasonStopped, how)
		})

	case inst.Running && (restart || drift):
		why, boot := "restarting as requested", "a restart was asked for"
		if drift {
			why, boot = "restarting: the template changed", "its template changed"
		}
		if err := c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			st.RestartNeeded = drift
			setRunning(st, gen, false, resource.ReasonReconciling, why)
		}); err != nil {
			return controller.Result{}, err
		}
		if err := c.driver.Stop(ctx, name, c.grace); err != nil {
			return controller.Result{}, err
		}
		// A restart shuts down and boots; the boot says why it did not
		// resume.
		if err := c.discard(name, boot); err != nil {
			return controller.Result{}, err
		}
		return controller.Result{RequeueAfter: soon}, c.stopped(ctx, vm, tmpl)

	case inst.Running:
		c.watchExit(resource.KeyOf(vm))
		return controller.Result{}, c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
			st.RestartNeeded = false
			st.Accelerator = inst.Accel
			reason, msg := startedReason(inst)
			setRunning(st, gen, true, reason, msg)
		})
	}

	// It should run and does not.
	if controller.Failed(vm, resource.VMRunning, resource.ReasonStartFailed) && !restart && !drift {
		return controller.Result{}, nil
	}
	// A host agent that lives but whose VM does not run yet is booting:
	// one that outlived the daemon is followed, not configured or started
	// twice.
	reconfigure := drift && !inst.HostAgentAlive
	if reconfigure {
		if err := c.driver.Reconfigure(ctx, name, []byte(tmpl.Data[resource.TemplateKey])); err != nil {
			return controller.Result{}, err
		}
	}
	if err := c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
		if reconfigure {
			st.ObservedTemplateResourceVersion = templateRV
		}
		st.RestartNeeded = false
		setRunning(st, gen, false, resource.ReasonStarting, "booting the VM")
	}); err != nil {
		return controller.Result{}, err
	}
	// Served once Running says Starting: a client waiting for the request
	// to be served never reads an earlier failure as its outcome.
	if restart {
		if err := c.dropAnnotation(ctx, vm, resource.AnnotationRestartRequested); err != nil {
			return controller.Result{}, err
		}
	}
	if !inst.HostAgentAlive {
		if vm.Spec.Cold && inst.Saved {
			if err := c.discard(name, coldAsked); err != nil {
				return controller.Result{}, err
			}
		}
		if err := c.driver.Start(ctx, name); err != nil {
			return controller.Result{}, controller.Terminal(vm, resource.VMRunning, resource.ReasonStartFailed, err)
		}
	}
	c.follow(resource.KeyOf(vm))
	return controller.Result{}, nil
}

// stopped finishes with a machine that is stopped: it takes the VM's
// template copy if that changed, which status records, and a restart
// request is served.
func (c *Controller) stopped(ctx context.Context, vm *resource.VM, tmpl *resource.ConfigMap) error {
	if vm.Status.ObservedTemplateResourceVersion != tmpl.Metadata.ResourceVersion {
		if err := c.driver.Reconfigure(ctx, vm.Metadata.Name, []byte(tmpl.Data[resource.TemplateKey])); err != nil {
			return err
		}
	}
	if err := c.setStatus(ctx, vm, func(st *resource.VMStatus, gen int64) {
		st.ObservedTemplateResourceVersion = tmpl.Metadata.ResourceVersion
		st.RestartNeeded = false
	}); err != nil {
		return err
	}
	if _, restart := vm.Metadata.Annotations[resource.AnnotationRestartRequested]; restart {
		return c.dropAnnotation(ctx, vm, resource.AnnotationRestartRequested)
	}
	return nil
}

// finalize cleans up a deleted VM: its machine, then its template copy,
// then the template it was made from if `vm create` made it and no other
// VM uses it, then its own finalizer.
func (c *Controller) finalize(ctx context.Context, vm *resource.VM) (controller.Result, error) {
	if !vm.Metadata.HasFinalizer(resource.FinalizerCleanup) {
		return controller.Result{}, nil
	}
	name := vm.Metadata.Name
	c.cancelBoot(name)
	if err := c.driver.Delete(ctx, name); err != nil {
		return controller.Result{}, fmt.Errorf("delete the machine of vm %s: %w", name, err)
	}
	tkey := templateKey(vm)
	if err := controller.DeleteOwned(ctx, c.store, tkey, vm); err != nil {
		return controller.Result{}, err
	}
	if err := controller.ReleaseOwned(ctx, c.store, tkey, resource.KindVM); err != nil {
		return controller.Result{}, err
	}
	if _, err := c.store.Get(ctx, tkey); !resource.IsNotFound(err) {
		if err != nil {
			return controller.Result{}, err
		}
		return controller.Result{RequeueAfter: 100 * time.Millisecond}, nil // another finalizer holds it
	}
	if err := c.releaseSource(ctx, vm, vm.Spec.TemplateRef); err != nil {
		return controller.Result{}, fmt.Errorf("delete the template vm %s was made from: %w", name, err)
	}
	c.forget(name)
	return controller.Result{}, controller.RemoveFinalizer(ctx, c.store, resource.KeyOf(vm), resource.FinalizerCleanup)
}

func (c *Controller) pending(name string) (bool, error) {
	names, err := c.driver.Uncommitted()
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if n == name {
			return true, nil
		}
	}
	return false, nil
}

// dropAnnotation removes a one-shot request annotation once it is served,
// with a merge patch of that one key, so no other writer's change is lost.
func (c *Controller) dropAnnotation(ctx context.Context, vm *resource.VM, a string) error {
	// Strings and a null: marshalling cannot fail.
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{a: nil}}})
	_, err := c.store.Patch(ctx, resource.KeyOf(vm), patch)
	return err
}

// errStale ends a status write whose VM changed identity meanwhile.
var errStale = errors.New("the VM was replaced")

// setStatus re-reads the VM and applies mutate to its status with the
// VM's current generation; nothing is written when nothing changed.
func (c *Controller) setStatus(ctx context.Context, vm *resource.VM, mutate func(*resource.VMStatus, int64)) error {
	_, err := controller.UpdateStatus(ctx, c.store, resource.KeyOf(vm), func(v *resource.VM) (bool, error) {
		if v.Metadata.UID != vm.Metadata.UID {
			return false, errStale
		}
		before := v.Status
		before.Conditions = slices.Clone(v.Status.Conditions)
		mutate(&v.Status, v.Metadata.Generation)
		return !reflect.DeepEqual(before, v.Status), nil
	})
	return err
}

// Instrument registers the VMs' metrics with m: how many are in each phase.
func (c *Controller) Instrument(m *metrics.Metrics) {
	m.GaugeByLabel("vms", "VMs by phase: Pending, Starting, Running, Stopping, Stopped, Failed or Terminating.", "phase",
		func() (map[string]float64, error) {
			objs, _, err := c.store.List(context.Background(), store.ListOptions{Kind: resource.KindVM})
			if err != nil {
				return nil, err
			}
			phases := map[string]float64{}
			for _, obj := range objs {
				phases[obj.(*resource.VM).Phase()]++
			}
			return phases, nil
		})
}
