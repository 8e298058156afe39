package app_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/core/vm/vmtest"
)

// fakeClock is the idle time's clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// engineUse is a FAKE of what the daemon's Docker socket, the engine and
// the App's VM say: the clients connected, whether a container runs, and
// the sessions in the App's VM.
type engineUse struct {
	mu       sync.Mutex
	clients  app.ClientActivity
	running  bool
	asked    string
	sessions int
}

func (u *engineUse) Sessions(_ context.Context, vm string) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if vm != resource.AppVMName {
		return 0, fmt.Errorf("asked about the sessions of vm %s, not the App's", vm)
	}
	return u.sessions, nil
}

func (u *engineUse) setSessions(n int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sessions = n
}

func (u *engineUse) Activity() app.ClientActivity {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.clients
}

func (u *engineUse) AnyRunning(_ context.Context, engine string) (bool, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = engine
	return u.running, nil
}

// askedAbout is the engine AnyRunning was last asked about.
func (u *engineUse) askedAbout() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.asked
}

func (u *engineUse) set(clients app.ClientActivity, running bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.clients, u.running = clients, running
}

// idleEnv is env with the idle detector's parts and a daemon that can be
// restarted on the same store and machines.
type idleEnv struct {
	*env
	saver vmtest.SavingDriver
	clock *fakeClock
	use   *engineUse
	apps  *app.Controller
	stop  func()
}

// startIdle runs the App and VM controllers on a real store and the fake
// VM driver, the App's idle time on a clock the test moves and looked at
// every 10 ms.
func startIdle(t *testing.T) *idleEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dialector, err := gormstore.Dialector(storetest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	d := vmtest.NewSavingDriver()
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: dialector, Admit: vm.Admit(d)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &idleEnv{
		saver: d,
		env:   &env{t: t, ctx: ctx, st: st, driver: d.FakeDriver, tmpl: &testTemplate{}, engine: &fakeEngine{}, hostCx: &recordingContext{}},
		clock: &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		use:   &engineUse{},
	}
	e.engine.set(true)
	e.runDaemon()
	t.Cleanup(func() { e.stop() })
	return e
}

// runDaemon starts the controllers, as a daemon does.
func (e *idleEnv) runDaemon() {
	ctx, cancel := context.WithCancel(e.ctx)
	e.apps = app.New(e.st, app.Options{Template: e.tmpl, Engine: e.engine, Context: e.hostCx,
		Clients: e.use.Activity, Containers: e.use, Sessions: e.use, Now: e.clock.Now, IdleRecheck: 10 * time.Millisecond})
	vms := vm.New(e.st, e.saver, vm.Options{StopGrace: time.Second})
	var wg sync.WaitGroup
	wg.Go(func() { e.apps.Run(ctx) })
	wg.Go(func() { vms.Run(ctx) })
	e.stop = func() { cancel(); wg.Wait() }
}

// restartDaemon ends the controllers and starts new ones, which know only
// the store, as a daemon that restarts.
func (e *idleEnv) restartDaemon() {
	e.stop()
	e.runDaemon()
}

// runningApp makes an App that suspends after 10 s and waits until it runs.
func (e *idleEnv) runningApp() *resource.App {
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB", SuspendWhenIdle: "10s"})
	return e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

// staysRunning checks that the App is still Settled running after the
// controller looked at it many times.
func (e *idleEnv) staysRunning(why string) {
	e.t.Helper()
	time.Sleep(200 * time.Millisecond) // 20 looks
	a := e.waitApp("the App", func(*resource.App) bool { return true })
	if c := cond(a.Status.Conditions, resource.AppSettled); c.Status != metav1.ConditionTrue || c.Reason != resource.ReasonRunning || !e.getVM().Spec.Running {
		e.t.Fatalf("%s: the App is not running: Settled %+v", why, c)
	}
}

// suspended waits until the App is suspended and checks what that is:
// spec.running still true, its VM stopped, its conditions saying so.
func (e *idleEnv) suspended() *resource.App {
	e.t.Helper()
	a := e.waitApp("Settled=True Suspended", func(a *resource.App) bool {
		c := cond(a.Status.Conditions, resource.AppSettled)
		return c.Status == metav1.ConditionTrue && c.Reason == resource.ReasonSuspended
	})
	if !a.Spec.Running || a.Metadata.Annotations[resource.AnnotationSuspended] != strconv.FormatInt(a.Metadata.Generation, 10) {
		e.t.Fatalf("a suspended App: spec %+v, annotations %v", a.Spec, a.Metadata.Annotations)
	}
	for _, typ := range []string{resource.AppRunning, resource.AppContainerEngineReady} {
		if c := cond(a.Status.Conditions, typ); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonSuspended || c.ObservedGeneration != a.Metadata.Generation {
			e.t.Fatalf("%s of a suspended App = %+v", typ, c)
		}
	}
	engine := resource.EngineTitle(a.Spec.ContainerEngine.Name)
	if c := cond(a.Status.Conditions, resource.AppSettled); !strings.Contains(c.Message, "after 10s without a "+engine+" client") ||
		!strings.Contains(c.Message, "its state saved") || !strings.Contains(c.Message, "the next "+engine+" request") {
		e.t.Fatalf("Settled = %+v", c)
	}
	if phase, _ := a.PhaseAndReason(); phase != resource.PhaseSuspended {
		e.t.Fatalf("phase %s", phase)
	}
	if v := e.getVM(); v.Spec.Running {
		e.t.Fatalf("the suspended App's VM should not run: %+v", v.Spec)
	}
	if inst, _ := e.driver.Machine(resource.AppVMName); inst.Running {
		e.t.Fatal("the suspended App's machine runs")
	}
	if got := e.hostCx.get(); got != a.Spec.ContainerEngine.Name && a.Spec.ContainerEngine.Name == resource.EngineMoby {
		e.t.Fatalf("the docker context of a suspended App points at %q; a client must still find it to wake it", got)
	}
	return a
}

func TestAnIdleAppIsSuspendedAfterItsIdleTime(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.clock.advance(9 * time.Second)
	e.staysRunning("idle for 9s of 10s")
	e.clock.advance(2 * time.Second)
	e.suspended()
	if n := e.driver.Count(vmtest.Save, resource.AppVMName); n != 1 {
		t.Fatalf("the machine's state was saved %d times", n)
	}
	e.clock.advance(time.Hour)
	e.staysSuspended()
}

// staysSuspended checks that the App is still suspended after the
// controller looked at it many times.
func (e *idleEnv) staysSuspended() {
	e.t.Helper()
	time.Sleep(200 * time.Millisecond)
	e.suspended()
}

func TestAnAppWithAClientOrARunningContainerIsNotSuspended(t *testing.T) {
	e := startIdle(t)
	e.runningApp()

	// A client connected all along (docker logs -f, an attached shell).
	e.use.set(app.ClientActivity{Connections: 1, Last: e.clock.Now()}, false)
	e.clock.advance(time.Minute)
	e.staysRunning("a client connected")

	// It left 5 s ago.
	e.clock.advance(5 * time.Second)
	e.use.set(app.ClientActivity{Last: e.clock.Now().Add(-5 * time.Second)}, false)
	e.clock.advance(time.Second)
	e.staysRunning("the last client left 6s ago")

	// A container runs, with no client.
	e.use.set(app.ClientActivity{Last: e.clock.Now().Add(-6 * time.Second)}, true)
	e.staysRunning("a container runs") // seen running now
	e.clock.advance(time.Minute)
	e.staysRunning("a container runs")

	// It ended: the idle time counts from when it was last seen.
	e.use.set(app.ClientActivity{Last: e.clock.Now().Add(-time.Minute)}, false)
	e.staysRunning("a container ended")
	e.clock.advance(11 * time.Second)
	e.suspended()
}

func TestWakeResumesASuspendedAppOnceForManyCallers(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.clock.advance(11 * time.Second)
	e.suspended()
	starts := e.driver.Count(vmtest.Start, resource.AppVMName)

	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- e.apps.Wake(ctx) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("Wake: %v", err)
		}
	}
	// Woken: the engine answered before Wake returned.
	a := e.waitApp("the App", func(*resource.App) bool { return true })
	if c := cond(a.Status.Conditions, resource.AppContainerEngineReady); c.Status != metav1.ConditionTrue || c.ObservedGeneration != a.Metadata.Generation {
		t.Fatalf("after Wake, ContainerEngineReady = %+v", c)
	}
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	if _, ok := a.Metadata.Annotations[resource.AnnotationSuspended]; ok || !e.getVM().Spec.Running {
		t.Fatalf("after Wake: annotations %v, VM spec %+v", a.Metadata.Annotations, e.getVM().Spec)
	}
	if c := cond(a.Status.Conditions, resource.AppRunning); c.Status != metav1.ConditionTrue || c.Reason != resource.ReasonResumed {
		t.Fatalf("after Wake, Running = %+v; want it resumed", c)
	}
	if n := e.driver.Count(vmtest.Start, resource.AppVMName) - starts; n != 1 {
		t.Fatalf("three wakes started the machine %d times", n)
	}
	// Woken, it counts its idle time anew.
	e.clock.advance(5 * time.Second)
	e.staysRunning("woken 5s ago")
	e.clock.advance(6 * time.Second)
	e.suspended()
}

func TestWakeSaysWhyItCannot(t *testing.T) {
	e := startIdle(t)
	if err := e.apps.Wake(e.ctx); !errors.Is(err, app.ErrNotToRun) {
		t.Fatalf("Wake without an App: %v", err)
	}
	e.runningApp()
	e.patchApp(`{"spec":{"running":false}}`)
	if err := e.apps.Wake(e.ctx); !errors.Is(err, app.ErrNotToRun) || !strings.Contains(err.Error(), "'paddock start' starts it") {
		t.Fatalf("Wake of a stopped App: %v", err)
	}

	// A resume that fails is the Wake's answer.
	a := e.patchApp(`{"spec":{"running":true}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	e.clock.advance(11 * time.Second)
	e.suspended()
	e.driver.Fail(vmtest.Boot, resource.AppVMName, errFake("qemu: cannot allocate memory"))
	e.engine.set(false) // the VM does not run, nor does its engine
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	if err := e.apps.Wake(ctx); err == nil || !strings.Contains(err.Error(), "cannot allocate memory") {
		t.Fatalf("Wake whose resume fails: %v", err)
	}
	// A Wake that runs out of time says so.
	short, cancel := context.WithTimeout(e.ctx, 50*time.Millisecond)
	defer cancel()
	e.driver.HoldBoots(true)
	if err := e.apps.Wake(short); err == nil {
		t.Fatal("a Wake out of time returned no error")
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

func TestASuspendedAppStaysSuspendedAcrossADaemonRestart(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.clock.advance(11 * time.Second)
	e.suspended()
	starts := e.driver.Count(vmtest.Start, resource.AppVMName)

	e.restartDaemon()
	e.staysSuspended()
	if n := e.driver.Count(vmtest.Start, resource.AppVMName); n != starts {
		t.Fatalf("the restarted daemon started the suspended App's machine (%d starts, were %d)", n, starts)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	if err := e.apps.Wake(ctx); err != nil {
		t.Fatalf("Wake after a restart: %v", err)
	}
}

// The App's idle time goes on across a restart of the daemon: the new
// daemon counts from when the App was last busy, which the status keeps,
// not from its own start. Once suspended, the App's idle time is over: a
// wake counts anew.
func TestAnAppsIdleTimeGoesOnAcrossADaemonRestart(t *testing.T) {
	e := startIdle(t)
	began := e.clock.Now()
	e.runningApp()
	e.clock.advance(6 * time.Second)
	a := e.waitApp("status.idleSince", func(a *resource.App) bool { return a.Status.IdleSince != nil })
	if since := a.Status.IdleSince.Time; !since.Equal(began) {
		t.Fatalf("idleSince %v: the App was idle from its start, %v", since, began)
	}

	e.restartDaemon()
	e.staysRunning("idle for 6s of 10s, across a restart")
	e.clock.advance(5 * time.Second)
	a = e.suspended()
	if a.Status.IdleSince != nil {
		t.Fatalf("a suspended App keeps idleSince %v", a.Status.IdleSince)
	}

	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	if err := e.apps.Wake(ctx); err != nil {
		t.Fatal(err)
	}
	e.staysRunning("woken, its idle time counted anew")
}

// A stop of a suspended App leaves it stopped, its state saved, and ends
// the suspension; the next start resumes it.
func TestStopAndStartOfASuspendedApp(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.clock.advance(11 * time.Second)
	e.suspended()
	starts := e.driver.Count(vmtest.Start, resource.AppVMName)

	a := e.patchApp(`{"spec":{"running":false}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonStopped)
	a = e.waitApp("the suspension's annotation gone", func(a *resource.App) bool {
		_, ok := a.Metadata.Annotations[resource.AnnotationSuspended]
		return !ok
	})
	if c := cond(a.Status.Conditions, resource.AppRunning); c.Reason != resource.ReasonStopped {
		t.Fatalf("Running of a stopped App = %+v", c)
	}
	if n := e.driver.Count(vmtest.Start, resource.AppVMName); n != starts || e.getVM().Spec.Running {
		t.Fatalf("a stop of a suspended App started its machine (%d starts, were %d)", n, starts)
	}

	// Its state stayed saved: the start resumes it.
	a = e.patchApp(`{"spec":{"running":true}}`)
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	if c := cond(a.Status.Conditions, resource.AppRunning); !e.getVM().Spec.Running || c.Reason != resource.ReasonResumed {
		t.Fatalf("the started App: VM spec %+v, Running %+v; want it resumed", e.getVM().Spec, c)
	}
}

// A woken App counts its idle time from the wake: a client's activity from
// before the suspension does not suspend it again at once. (A wake through
// the API, as 'paddock shell' and 'paddock ctr' make, brings no client of
// the engine; those commands were cut off by a suspension right after
// their wake.)
func TestAWokenAppCountsItsIdleTimeFromTheWake(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.use.set(app.ClientActivity{Last: e.clock.Now()}, false) // a client left just now
	e.clock.advance(11 * time.Second)
	e.suspended()
	e.clock.advance(time.Minute)
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	if err := e.apps.Wake(ctx); err != nil {
		t.Fatalf("Wake: %v", err)
	}
	e.staysRunning("woken a moment ago")
	e.clock.advance(11 * time.Second)
	e.suspended()
}

// Someone working in the App's VM (a login, a command) keeps it awake as
// a client does: once the session ends, the App is suspended after its
// idle time counted from when the session was last seen.
func TestAnAppSomeoneWorksInIsNotSuspended(t *testing.T) {
	e := startIdle(t)
	e.runningApp()
	e.use.setSessions(1)
	e.clock.advance(time.Hour)
	e.staysRunning("a session")
	e.use.setSessions(0)
	e.clock.advance(9 * time.Second)
	e.staysRunning("idle for 9s of 10s after the session")
	e.clock.advance(2 * time.Second)
	e.suspended()
}

// Suspending is off by default.
func TestAnAppIsNotSuspendedWhenOff(t *testing.T) {
	e := startIdle(t)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	e.clock.advance(time.Hour)
	e.staysRunning("suspendWhenIdle off")
}

// An App that runs containerd is suspended as one that runs Docker (the
// daemon serves containerd's socket as well, which wakes it), and asked
// about its containers by its engine's name.
func TestAnAppRunningContainerdIsSuspendedAndWoken(t *testing.T) {
	e := startIdle(t)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB", SuspendWhenIdle: "10s",
		ContainerEngine: resource.ContainerEngine{Name: resource.EngineContainerd}})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	e.use.set(app.ClientActivity{}, true)
	e.clock.advance(time.Hour)
	e.staysRunning("containerd with a task running")
	e.use.set(app.ClientActivity{}, false)
	e.clock.advance(11 * time.Second)
	e.suspended()
	if got := e.use.askedAbout(); got != resource.EngineContainerd {
		t.Fatalf("the containers were asked of %q", got)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 15*time.Second)
	defer cancel()
	if err := e.apps.Wake(ctx); err != nil {
		t.Fatalf("Wake: %v", err)
	}
	e.waitApp("running again", func(a *resource.App) bool {
		c := cond(a.Status.Conditions, resource.AppSettled)
		return c.Status == metav1.ConditionTrue && c.Reason == resource.ReasonRunning
	})
}
