package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// idleRecheck is how often an App that may become idle is looked at again:
// the engine's clients are read at once, its containers asked through the
// VM's forward (a round trip through the guest, as engineRecheck's ping).
const idleRecheck = 30 * time.Second

// sessionsTimeout bounds the question whether someone works in the App's
// VM: a command over SSH, a second or more under emulation.
const sessionsTimeout = 15 * time.Second

// ClientActivity is what the engine's clients on the host do: how many
// connections are open now, and when one last opened, closed or sent a
// request (zero when none ever did).
type ClientActivity struct {
	Connections int
	Last        time.Time
}

// Sessions says how many people work in the App's VM, where nothing on
// the host sees what they do: logins on a terminal ('paddock shell', or
// ssh through 'paddock ssh-config') and commands that 'paddock shell'
// runs (resource.HoldingAppBusy).
type Sessions interface {
	Sessions(ctx context.Context, vm string) (int, error)
}

// Containers says whether a container runs in the engine (Docker's
// GET /containers/json?limit=1 for moby, the tasks of every namespace for
// containerd).
type Containers interface {
	AnyRunning(ctx context.Context, engine string) (bool, error)
}

// idleClock is when the running App was last seen busy, by its UID: the
// start of the idle time that spec.suspendWhenIdle bounds. The App's
// status.idleSince keeps it while the App is idle, and a daemon that
// starts takes it from there (seed); otherwise it counts from its start.
type idleClock struct {
	mu    sync.Mutex
	uid   string
	since time.Time
}

// follow starts following the App uid from now, unless it is followed
// already, and returns when it was last busy.
func (c *idleClock) follow(uid string, now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.uid != uid {
		c.uid, c.since = uid, now
	}
	return c.since
}

// seed starts following the App uid from since, unless it is followed
// already or since is unset.
func (c *idleClock) seed(uid string, since *metav1.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.uid != uid && since != nil {
		c.uid, c.since = uid, since.Time
	}
}

// busy records that the App uid, which is followed, was busy at t.
func (c *idleClock) busy(uid string, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.uid == uid && t.After(c.since) {
		c.since = t
	}
}

func (c *idleClock) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.uid, c.since = "", time.Time{}
}

func (c *Controller) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// suspends reports whether the App may be suspended when idle: it asks for
// it, and the controller can tell its clients (whose connections wake it)
// and containers.
func (c *Controller) suspends(app *resource.App) bool {
	return app.Spec.IdleTimeout() > 0 && c.opts.Clients != nil && c.opts.Containers != nil
}

// checkIdle follows a running, settled App that suspends when idle: when
// no client was connected, no container ran and no one worked in its VM
// for spec.suspendWhenIdle, it suspends the App. It returns how soon to
// look again (zero when it suspended the App: the write wakes the
// controller).
func (c *Controller) checkIdle(ctx context.Context, app *resource.App) (time.Duration, error) {
	limit, uid, now := app.Spec.IdleTimeout(), app.Metadata.UID, c.now()
	c.idle.seed(uid, app.Status.IdleSince)
	// An App not followed yet counts from now: at a daemon's first look
	// without a stored idleSince, and at the first look after a wake (the
	// suspension forgot the clock). A client's last activity from before
	// then, taken as the start, would suspend the App again at once, under
	// a command that woke it through the API ('paddock shell') and is no
	// client of the engine.
	c.idle.follow(uid, now)
	clients := c.opts.Clients()
	if clients.Connections == 0 && !clients.Last.IsZero() {
		c.idle.busy(uid, clients.Last)
	}
	since := c.idle.follow(uid, now)
	recheck := c.opts.IdleRecheck
	if recheck <= 0 {
		recheck = idleRecheck
	}
	// busyNow records the App busy now, and says when to look again.
	busyNow := func() (time.Duration, error) {
		c.idle.busy(uid, now)
		return min(limit, recheck), c.writeIdleSince(ctx, app, time.Time{})
	}
	if clients.Connections > 0 {
		return busyNow()
	}
	// Asked on every look, not only at the end: a container that ran for
	// a while in between counts.
	asked, cancel := context.WithTimeout(ctx, pingTimeout)
	running, err := c.opts.Containers.AnyRunning(asked, app.Spec.ContainerEngine.Name)
	cancel()
	if err != nil || running {
		// An engine that does not say is not idle: it is looked at again.
		if err != nil {
			c.log.Debug("cannot tell whether containers run; the App is not suspended", "err", err)
		}
		return busyNow()
	}
	if idle := now.Sub(since); idle < limit {
		return min(limit-idle, recheck), c.writeIdleSince(ctx, app, since)
	}
	// Asked only at the end, since it logs in to the VM: someone working
	// in it (a shell, a command) uses the App as much as a client.
	if c.opts.Sessions != nil {
		asked, cancel := context.WithTimeout(ctx, sessionsTimeout)
		sessions, err := c.opts.Sessions.Sessions(asked, resource.AppVMName)
		cancel()
		if err != nil || sessions > 0 {
			if err != nil {
				c.log.Debug("cannot tell whether someone works in the App's VM; the App is not suspended", "err", err)
			}
			return busyNow()
		}
	}
	c.log.Info("suspending the App: no client of its engine and no running container", "engine", app.Spec.ContainerEngine.Name, "for", now.Sub(since).Round(time.Second), "suspendWhenIdle", app.Spec.SuspendWhenIdle)
	// The idle time ends with the suspension, in memory and in the status,
	// before the App says it is suspended: a wake that comes before this
	// controller sees the suspension counts anew rather than from the old
	// status.idleSince, which would suspend the App again at once.
	c.idle.forget()
	if err := c.writeIdleSince(ctx, app, time.Time{}); err != nil {
		return 0, err
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, resource.AnnotationSuspended, strconv.FormatInt(app.Metadata.Generation, 10))
	_, err = c.store.Patch(ctx, resource.KeyOf(app), patch)
	return 0, err
}

// writeIdleSince sets the App's status.idleSince to since, or unsets it for
// a zero since, when that changes it (at the second, as it is stored).
func (c *Controller) writeIdleSince(ctx context.Context, app *resource.App, since time.Time) error {
	var want *metav1.Time
	if !since.IsZero() {
		want = &metav1.Time{Time: since.Truncate(time.Second)}
	}
	_, err := controller.UpdateStatus(ctx, c.store, resource.KeyOf(app), func(a *resource.App) (bool, error) {
		if a.Metadata.UID != app.Metadata.UID {
			return false, errStale
		}
		if a.Status.IdleSince.Equal(want) {
			return false, nil
		}
		a.Status.IdleSince = want
		return true, nil
	})
	return err
}

// dropStaleSuspension removes an AnnotationSuspended that no longer holds
// (the App's spec changed since), so that it says nothing it does not mean.
func (c *Controller) dropStaleSuspension(ctx context.Context, app *resource.App) error {
	if _, ok := app.Metadata.Annotations[resource.AnnotationSuspended]; !ok || app.Suspended() {
		return nil
	}
	_, err := c.store.Patch(ctx, resource.KeyOf(app), unsuspend)
	return err
}

// unsuspend is the merge patch that ends a suspension.
var unsuspend = []byte(resource.UnsuspendPatch)

// ErrNotToRun is Wake's error when there is no App, or it is stopped:
// nothing is to wake.
var ErrNotToRun = errors.New("the App is not to run")

// Wake resumes the App when it is suspended (its VM starts again, resuming
// the state it saved) and returns once its engine answers, or with why it
// will not: there is no App or it is stopped (ErrNotToRun), its start
// failed, or ctx ended.
// An App that is starting is waited for. Wakes at the same time share one
// resume: each ends the same suspension and waits for the same App.
func (c *Controller) Wake(ctx context.Context) error {
	key := resource.Key{Kind: resource.KindApp.Name, Name: resource.AppName}
	obj, err := c.store.Get(ctx, key)
	if resource.IsNotFound(err) {
		return fmt.Errorf("%w: there is no App", ErrNotToRun)
	}
	if err != nil {
		return err
	}
	a := obj.(*resource.App)
	if _, ok := a.Metadata.Annotations[resource.AnnotationSuspended]; ok && a.Spec.Running {
		c.log.Info("waking the suspended App")
		if obj, err = c.store.Patch(ctx, key, unsuspend); err != nil {
			return err
		}
	}
	return waitAwake(ctx, c.store, obj.(*resource.App))
}

// waitAwake follows the App from its revision in from until its engine
// answers (ContainerEngineReady True, or Settled True with reason Running,
// for its current generation), and
// fails when it will not: it is stopped, suspended again, deleted, or
// failed.
func waitAwake(ctx context.Context, st store.Store, from *resource.App) error {
	a := from
	for {
		if done, err := awake(a); done || err != nil {
			return err
		}
		rv := revision(a)
		next, err := nextAppAfter(ctx, st, from, rv)
		if err != nil {
			return err
		}
		// A read can lag a write the store already answered (on
		// PostgreSQL, as its watches can): an App older than the one seen
		// is no news, and seen as suspended still it would end the wait.
		if revision(next) >= rv {
			a = next
		}
	}
}

// revision is a's resourceVersion as a number.
func revision(a *resource.App) int64 {
	rv, _ := strconv.ParseInt(a.Metadata.ResourceVersion, 10, 64)
	return rv
}

// nextAppAfter returns the App from as the store next shows it after
// revision rv: from a watch, or read anew when the watch cannot serve.
func nextAppAfter(ctx context.Context, st store.Store, from *resource.App, rv int64) (*resource.App, error) {
	w, err := st.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindApp}, ResourceVersion: rv})
	var a *resource.App
	switch {
	case resource.ReasonOf(err) == resource.ReasonGone:
		// A revision the store's watches have not caught up with yet (on
		// PostgreSQL a write's answer can come first), or one too old:
		// after a moment, read the App anew.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		err = errWatchEnded
	case err != nil:
		return nil, err
	default:
		a, err = nextApp(ctx, w)
		w.Stop()
	}
	if errors.Is(err, errWatchEnded) {
		// Too slow, or a revision too old: read the App anew.
		obj, gerr := st.Get(ctx, resource.KeyOf(from))
		if gerr != nil {
			return nil, gerr
		}
		return obj.(*resource.App), nil
	}
	return a, err
}

var errWatchEnded = errors.New("the watch ended")

// nextApp returns the App as the watch next shows it.
func nextApp(ctx context.Context, w *store.Watcher) (*resource.App, error) {
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("the App's engine did not answer in time: %w", ctx.Err())
			}
			return nil, errWatchEnded
		}
		switch ev.Type {
		case store.Deleted:
			return nil, errors.New("the App was deleted")
		case store.Added, store.Modified:
			a := &resource.App{}
			if err := json.Unmarshal(ev.Object, a); err != nil {
				return nil, err
			}
			return a, nil
		}
	}
}

// awake reports whether the App's engine answers after a wake (its
// ContainerEngineReady, which a suspended App has False, is True again),
// or why it will not.
func awake(a *resource.App) (bool, error) {
	switch {
	case a.Metadata.Terminating():
		return false, errors.New("the App is being deleted")
	case !a.Spec.Running:
		return false, fmt.Errorf("%w: the App is stopped: 'paddock start' starts it", ErrNotToRun)
	case a.Suspended():
		return false, errors.New("the App was suspended again")
	}
	// The engine answers through the VM's forward, often before Lima's
	// last check of the resume (or boot) passed and the App settles.
	if e := meta.FindStatusCondition(a.Status.Conditions, resource.AppContainerEngineReady); e != nil &&
		e.Status == metav1.ConditionTrue && resource.ConditionCurrent(e, a.Metadata.Generation) {
		return true, nil
	}
	c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
	if c == nil || !resource.ConditionCurrent(c, a.Metadata.Generation) {
		return false, nil
	}
	if c.Status == metav1.ConditionTrue {
		return c.Reason == resource.ReasonRunning, nil
	}
	if slices.Contains(resource.AppFailures, c.Reason) {
		return false, fmt.Errorf("the App failed to start (%s): %s", c.Reason, c.Message)
	}
	return false, nil
}
