package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/core/vm/vmtest"
)

// testTemplate renders a small template naming its engine and the
// mounts when they are not the default; err makes it
// fail as a platform without an image does.
type testTemplate struct {
	mu  sync.Mutex
	err error
}

func (t *testTemplate) Render(spec resource.AppSpec) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return nil, t.err
	}
	text := "vmType: test\nengine: " + spec.ContainerEngine.Name + "\ncpus: 1\n"
	if !slices.Equal(spec.Mounts, resource.DefaultAppMounts()) {
		for _, m := range spec.Mounts {
			text += "mount: " + m.String() + "\n"
		}
	}
	return []byte(text), nil
}

func (t *testTemplate) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = err
}

// fakeEngine is a FAKE of the engine behind its forwarded socket: it
// answers only once told to, so that the wait for it shows.
type fakeEngine struct {
	mu     sync.Mutex
	answer bool
}

func (e *fakeEngine) Ping(_ context.Context, engine string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.answer {
		return "", errors.New("connection refused")
	}
	return engine + " answered", nil
}

func (e *fakeEngine) set(answer bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = answer
}

// recordingContext records what the controller asked of the host's docker
// context.
type recordingContext struct {
	mu    sync.Mutex
	inUse string // the engine the context points at, "" when removed
}

func (r *recordingContext) Use(_ context.Context, engine string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inUse = engine
	return nil
}

func (r *recordingContext) Remove(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inUse = ""
	return nil
}

func (r *recordingContext) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inUse
}

type env struct {
	t      *testing.T
	ctx    context.Context
	st     store.Store
	driver *vmtest.FakeDriver
	tmpl   *testTemplate
	engine *fakeEngine
	hostCx *recordingContext
}

// start opens a real store and runs the App controller, and with withVMs
// the real VM controller on the VM controller's fake driver.
func start(t *testing.T, withVMs bool) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dialector, err := gormstore.Dialector(storetest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	d := vmtest.NewFakeDriver()
	st, err := gormstore.Open(ctx, gormstore.Config{Dialector: dialector, Admit: vm.Admit(d)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx, st: st, driver: d, tmpl: &testTemplate{}, engine: &fakeEngine{}, hostCx: &recordingContext{}}
	apps := app.New(st, app.Options{Template: e.tmpl, Engine: e.engine, Context: e.hostCx})
	var wg sync.WaitGroup
	wg.Go(func() { apps.Run(ctx) })
	if withVMs {
		vms := vm.New(st, d, vm.Options{StopGrace: time.Second})
		wg.Go(func() { vms.Run(ctx) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		st.Close()
	})
	return e
}

func (e *env) createApp(spec resource.AppSpec) *resource.App {
	e.t.Helper()
	a := &resource.App{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "App"},
		Metadata: resource.ObjectMeta{Name: resource.AppName}, Spec: spec}
	out, err := e.st.Create(e.ctx, a)
	if err != nil {
		e.t.Fatal(err)
	}
	return out.(*resource.App)
}

func (e *env) patchApp(patch string) *resource.App {
	e.t.Helper()
	out, err := e.st.Patch(e.ctx, resource.Key{Kind: "App", Name: resource.AppName}, []byte(patch))
	if err != nil {
		e.t.Fatal(err)
	}
	return out.(*resource.App)
}

var vmKey = resource.Key{Kind: "VM", Namespace: "paddock", Name: resource.AppVMName}

func (e *env) getVM() *resource.VM {
	e.t.Helper()
	obj, err := e.st.Get(e.ctx, vmKey)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*resource.VM)
}

// waitApp waits until the App satisfies ok and returns it; what says what
// was waited for.
func (e *env) waitApp(what string, ok func(*resource.App) bool) *resource.App {
	e.t.Helper()
	var last resource.Object
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		obj, err := e.st.Get(e.ctx, resource.Key{Kind: "App", Name: resource.AppName})
		if err == nil {
			last = obj
			if ok(obj.(*resource.App)) {
				return obj.(*resource.App)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	raw, _ := json.MarshalIndent(last, "", "  ")
	e.t.Fatalf("timed out waiting for the App: %s; last seen:\n%s", what, raw)
	return nil
}

// waitSettled waits for Settled with status and reason, observed for the
// App's generation gen or later.
func (e *env) waitSettled(gen int64, status metav1.ConditionStatus, reason string) *resource.App {
	e.t.Helper()
	return e.waitApp(fmt.Sprintf("Settled=%s %s at generation %d", status, reason, gen), func(a *resource.App) bool {
		c := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration >= gen && a.Metadata.Generation == c.ObservedGeneration
	})
}

func (e *env) waitGone(key resource.Key) {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := e.st.Get(e.ctx, key); resource.IsNotFound(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("%s is still there", key)
}

// template is the template the App's machine holds.
func (e *env) template() string {
	_, t := e.driver.Machine(resource.AppVMName)
	return t
}

func cond(conds []metav1.Condition, t string) metav1.Condition {
	if c := meta.FindStatusCondition(conds, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func TestStartMakesAnOwnedVMAndSettlesOnceTheEngineAnswers(t *testing.T) {
	e := start(t, true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})

	// The VM runs, the engine does not answer yet: not Settled.
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonConnecting)
	if c := cond(a.Status.Conditions, resource.AppContainerEngineReady); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonConnecting || !strings.Contains(c.Message, "connection refused") {
		t.Fatalf("ContainerEngineReady = %+v", c)
	}
	e.engine.set(true)
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)

	v := e.getVM()
	ref, ok := v.Metadata.ControllerOf()
	if !ok || ref.Kind != "App" || ref.UID != a.Metadata.UID || !v.Metadata.HasFinalizer(resource.OwnedByFinalizer("App")) {
		t.Fatalf("the VM is not the App's: %+v", v.Metadata)
	}
	if !v.Spec.Running || v.Spec.Params["cpus"] != float64(1) || v.Spec.Params["memory"] != "1GiB" || v.Spec.Params["disk"] != "64GiB" {
		t.Fatalf("VM spec = %+v", v.Spec)
	}
	if got := e.template(); !strings.Contains(got, "engine: moby") || !strings.Contains(got, "memory: 1GiB") {
		t.Fatalf("the machine was made from:\n%s", got)
	}
	// Created and Running are the VM's, stamped with the App's generation,
	// their transition times carried over.
	for _, typ := range []string{resource.AppCreated, resource.AppRunning} {
		ac, vc := cond(a.Status.Conditions, typ), cond(v.Status.Conditions, typ)
		if ac.Status != vc.Status || ac.Reason != vc.Reason || !ac.LastTransitionTime.Equal(&vc.LastTransitionTime) || ac.ObservedGeneration != a.Metadata.Generation {
			t.Errorf("%s on the App %+v does not mirror the VM's %+v", typ, ac, vc)
		}
	}
	if c := cond(a.Status.Conditions, resource.AppContainerEngineReady); c.Status != metav1.ConditionTrue || c.Reason != resource.ReasonConnected || c.ObservedGeneration != a.Metadata.Generation {
		t.Fatalf("ContainerEngineReady = %+v", c)
	}
	if got := e.hostCx.get(); got != resource.EngineMoby {
		t.Fatalf("the docker context points at %q", got)
	}
}

// The engine is asked while the VM boots: an answer then is shown at once,
// and the App settles as the VM turns Running; before it answers, the
// engine is only waited for.
func TestAnEngineThatAnswersWhileTheVMBootsSettlesTheAppAsItRuns(t *testing.T) {
	e := start(t, true)
	e.driver.HoldBoots(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	gen := a.Metadata.Generation

	a = e.waitSettled(gen, metav1.ConditionFalse, resource.ReasonStarting)
	if c := cond(a.Status.Conditions, resource.AppContainerEngineReady); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonWaiting {
		t.Fatalf("ContainerEngineReady while the VM boots and the engine does not answer = %+v", c)
	}
	e.engine.set(true)
	a = e.waitApp("the engine's answer while the VM boots", func(a *resource.App) bool {
		c := cond(a.Status.Conditions, resource.AppContainerEngineReady)
		return c.Status == metav1.ConditionTrue && c.Reason == resource.ReasonConnected
	})
	if s := cond(a.Status.Conditions, resource.AppSettled); s.Status != metav1.ConditionFalse || s.Reason != resource.ReasonStarting {
		t.Fatalf("Settled before the VM runs = %+v", s)
	}
	e.driver.FinishBoot(resource.AppVMName, nil)
	e.waitSettled(gen, metav1.ConditionTrue, resource.ReasonRunning)
}

func TestSetSizesPatchesOnlyTheAppsFieldsAndRestarts(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)

	// Another writer's param survives the App's patches.
	if _, err := e.st.Patch(e.ctx, vmKey, []byte(`{"spec":{"params":{"mounts":[]}}}`)); err != nil {
		t.Fatal(err)
	}
	restarts := e.getVM().Status.RestartCount
	a = e.patchApp(`{"spec":{"memory":"2GiB"}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	v := e.getVM()
	if v.Spec.Params["memory"] != "2GiB" || v.Spec.Params["mounts"] == nil {
		t.Fatalf("params = %v: the App must patch its own fields and keep the others'", v.Spec.Params)
	}
	if v.Status.RestartCount <= restarts || !strings.Contains(e.template(), "memory: 2GiB") {
		t.Fatalf("the VM did not restart into 2GiB (restarts %d -> %d):\n%s", restarts, v.Status.RestartCount, e.template())
	}
}

func TestEngineSwitchMovesTheVMToANewTemplateAndDropsTheOld(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	old := e.getVM().Spec.TemplateRef

	a = e.patchApp(`{"spec":{"containerEngine":{"name":"containerd"}}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	if !strings.Contains(e.template(), "engine: containerd") {
		t.Fatalf("the machine runs:\n%s", e.template())
	}
	if ref := e.getVM().Spec.TemplateRef; ref == old || !strings.HasPrefix(ref, "app-containerd-") {
		t.Fatalf("templateRef %q after switching from %q", ref, old)
	}
	e.waitGone(resource.Key{Kind: "ConfigMap", Namespace: "paddock", Name: old})
	if got := e.hostCx.get(); got != resource.EngineContainerd {
		t.Fatalf("the docker context is for %q", got)
	}
}

// A change of the shared folders is a change of the template: the VM
// restarts into a template that lists them.
func TestMountsChangeRestartsTheVMIntoANewTemplate(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	old, restarts := e.getVM().Spec.TemplateRef, e.getVM().Status.RestartCount

	dir := t.TempDir()
	a = e.patchApp(`{"spec":{"mounts":[{"location":"` + dir + `","readOnly":true}]}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	v := e.getVM()
	if v.Spec.TemplateRef == old || v.Status.RestartCount <= restarts || !strings.Contains(e.template(), "mount: "+dir+":ro\n") {
		t.Fatalf("templateRef %q (was %q), restarts %d (were %d), the machine runs:\n%s", v.Spec.TemplateRef, old, v.Status.RestartCount, restarts, e.template())
	}
}

func TestStopSettlesStoppedAndRemovesTheContext(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)

	a = e.patchApp(`{"spec":{"running":false}}`)
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonStopped)
	if c := cond(a.Status.Conditions, resource.AppRunning); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonStopped {
		t.Fatalf("Running = %+v", c)
	}
	if c := cond(a.Status.Conditions, resource.AppContainerEngineReady); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonStopped || c.ObservedGeneration != a.Metadata.Generation {
		t.Fatalf("ContainerEngineReady = %+v", c)
	}
	if got := e.hostCx.get(); got != "" {
		t.Fatalf("the docker context still points at %q", got)
	}
}

func TestAFailedStartIsForwarded(t *testing.T) {
	e := start(t, true)
	e.driver.Fail(vmtest.Boot, resource.AppVMName, errors.New("qemu: cannot allocate memory"))
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonStartFailed)
	if c := cond(a.Status.Conditions, resource.AppSettled); !strings.Contains(c.Message, "cannot allocate memory") {
		t.Fatalf("Settled = %+v", c)
	}
}

// A VM the store will not take for a reason other than its spec (here the
// driver cannot check it: its helper is missing) is the App's state, with
// the driver's words, not a silent retry; the App starts once the cause
// is gone.
func TestAVMThatCannotBeCreatedIsReportedAndRetried(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	for range 100 { // until cleared: each attempt takes one
		e.driver.Fail(vmtest.Validate, resource.AppVMName, errors.New("paddock-lima, which creates, starts and deletes VMs, is missing"))
	}
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonCreateFailed)
	for _, typ := range []string{resource.AppCreated, resource.AppSettled} {
		if c := cond(a.Status.Conditions, typ); c.Reason != resource.ReasonCreateFailed || !strings.Contains(c.Message, "paddock-lima, which creates") {
			t.Fatalf("%s = %+v", typ, c)
		}
	}
	if _, err := e.st.Get(e.ctx, vmKey); !resource.IsNotFound(err) {
		t.Fatalf("the VM: %v, want none", err)
	}
	e.driver.Clear(vmtest.Validate, resource.AppVMName)
	e.patchApp(`{"metadata":{"labels":{"nudge":"1"}}}`) // no need to wait for the retry timer
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

func TestATemplateThatCannotBeMadeIsReportedAndRetried(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	e.tmpl.fail(errors.New("no guest image: build one"))
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonTemplateFailed)
	if c := cond(a.Status.Conditions, resource.AppCreated); c.Reason != resource.ReasonTemplateFailed || !strings.Contains(c.Message, "no guest image") {
		t.Fatalf("Created = %+v", c)
	}
	e.tmpl.fail(nil)
	e.patchApp(`{"metadata":{"labels":{"nudge":"1"}}}`) // no need to wait for the retry timer
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

// While the image downloads, the App says how far it got, looks again
// each second without being nudged, and settles once the image is there.
func TestADownloadingImageIsShownWithItsProgressThenTheAppStarts(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	e.tmpl.fail(&app.PendingError{Reason: resource.ReasonDownloading, Message: "downloading the guest image: 1 MiB of 4 MiB (25%)"})
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonDownloading)
	if c := cond(a.Status.Conditions, resource.AppCreated); c.Reason != resource.ReasonDownloading || c.Message != "downloading the guest image: 1 MiB of 4 MiB (25%)" {
		t.Fatalf("Created = %+v", c)
	}
	e.tmpl.fail(&app.PendingError{Reason: resource.ReasonDownloading, Message: "downloading the guest image: 3 MiB of 4 MiB (75%)"})
	e.waitApp("the newer progress", func(a *resource.App) bool {
		return strings.Contains(cond(a.Status.Conditions, resource.AppSettled).Message, "75%")
	})
	e.tmpl.fail(nil)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

func TestAForeignVMOfTheSameNameBlocksTheApp(t *testing.T) {
	e := start(t, false)
	cm := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: "mine", Namespace: "paddock"}, Data: map[string]string{"template": "vmType: test\n"}}
	if _, err := e.st.Create(e.ctx, cm); err != nil {
		t.Fatal(err)
	}
	foreign := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: resource.AppVMName, Namespace: "paddock"}, Spec: resource.VMSpec{TemplateRef: "mine"}}
	if _, err := e.st.Create(e.ctx, foreign); err != nil {
		t.Fatal(err)
	}
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	a = e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonVMNameTaken)
	if c := cond(a.Status.Conditions, resource.AppSettled); !strings.Contains(c.Message, `vm "app" in namespace "paddock"`) {
		t.Fatalf("Settled = %+v", c)
	}
	if e.getVM().Spec.TemplateRef != "mine" {
		t.Fatal("the App changed a VM it does not own")
	}
}

func TestDeletingTheAppsVMDirectlyIsRefusedNamingTheApp(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	_, err := e.st.Delete(e.ctx, vmKey, store.DeleteOptions{})
	if resource.ReasonOf(err) != resource.ReasonForbidden || !strings.Contains(err.Error(), "App app") {
		t.Fatalf("direct delete of the App's VM: %v", err)
	}
	if e.getVM().Metadata.Terminating() {
		t.Fatal("the refused delete marked the VM Terminating")
	}
}

func TestDeletingTheAppDeletesItsVMAndTemplatesThenItself(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)

	if _, err := e.st.Delete(e.ctx, resource.Key{Kind: "App", Name: resource.AppName}, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitGone(resource.Key{Kind: "App", Name: resource.AppName})
	if _, err := e.st.Get(e.ctx, vmKey); !resource.IsNotFound(err) {
		t.Fatalf("the App is gone before its VM: %v", err)
	}
	if inst, _ := e.driver.Machine(resource.AppVMName); inst.Exists {
		t.Fatal("the VM's machine is still there")
	}
	cms, _, err := e.st.List(e.ctx, store.ListOptions{Kind: resource.KindConfigMap, Labels: labels.Everything()})
	if err != nil || len(cms) != 0 {
		t.Fatalf("configmaps left: %d (%v)", len(cms), err)
	}
	if got := e.hostCx.get(); got != "" {
		t.Fatalf("the docker context still points at %q", got)
	}
	// A new App can be made at once.
	a = e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

func TestAVMDeletedByAnotherPathIsLetGoAndMadeAnew(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	first := e.getVM()

	// A delete past the guard (as its owner would) makes the VM
	// Terminating; the App must release its finalizer or both wait forever.
	ref := resource.ControllerReference(a)
	if _, err := e.st.Delete(e.ctx, vmKey, store.DeleteOptions{Owner: &ref}); err != nil {
		t.Fatal(err)
	}
	e.waitApp("a new VM", func(*resource.App) bool {
		obj, err := e.st.Get(e.ctx, vmKey)
		return err == nil && obj.GetMeta().UID != first.Metadata.UID
	})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
}

func TestMirroredConditionsFollowTheVMAndVanishWithIt(t *testing.T) {
	e := start(t, false) // the VM's status is written by hand here
	e.engine.set(true)
	e.createApp(resource.AppSpec{Running: false, CPUs: 1, Memory: "1GiB"})
	e.waitApp("the VM", func(*resource.App) bool { _, err := e.st.Get(e.ctx, vmKey); return err == nil })
	// The VM's generation moves apart from the App's.
	if _, err := e.st.Patch(e.ctx, vmKey, []byte(`{"spec":{"params":{"mounts":[]}}}`)); err != nil {
		t.Fatal(err)
	}
	v := e.getVM()
	past := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	v.Status.Conditions = []metav1.Condition{
		{Type: resource.VMCreated, Status: "True", Reason: resource.ReasonCreated, Message: "the machine exists", ObservedGeneration: v.Metadata.Generation, LastTransitionTime: past},
		{Type: resource.VMRunning, Status: "False", Reason: resource.ReasonStopped, Message: "the VM is stopped", ObservedGeneration: v.Metadata.Generation, LastTransitionTime: past},
	}
	if _, err := e.st.UpdateStatus(e.ctx, v); err != nil {
		t.Fatal(err)
	}
	a := e.waitApp("Running mirrored", func(a *resource.App) bool {
		return cond(a.Status.Conditions, resource.AppRunning).Reason == resource.ReasonStopped
	})
	for _, typ := range []string{resource.AppCreated, resource.AppRunning} {
		c := cond(a.Status.Conditions, typ)
		if !c.LastTransitionTime.Equal(&past) || c.ObservedGeneration != a.Metadata.Generation || a.Metadata.Generation == v.Metadata.Generation {
			t.Fatalf("%s = %+v; want the VM's transition time %v and the App's generation %d (the VM's is %d)", typ, c, past, a.Metadata.Generation, v.Metadata.Generation)
		}
	}
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonStopped)

	v = e.getVM()
	v.Status.Conditions = v.Status.Conditions[:1]
	if _, err := e.st.UpdateStatus(e.ctx, v); err != nil {
		t.Fatal(err)
	}
	a = e.waitApp("Running gone", func(a *resource.App) bool {
		return meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning) == nil
	})
	if c := cond(a.Status.Conditions, resource.AppSettled); c.Status != metav1.ConditionFalse || c.Reason != resource.ReasonReconciling {
		t.Fatalf("Settled without the VM's Running = %+v", c)
	}
}

// A run that died between making the App's template and making its VM
// left the template behind: the next reconcile takes it up, and makes no
// second one.
func TestATemplateLeftByAnInterruptedRunIsReused(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	e.tmpl.fail(errors.New("not yet"))
	a := e.createApp(resource.AppSpec{Running: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionFalse, resource.ReasonTemplateFailed)

	text := []byte("vmType: test\nengine: moby\ncpus: 1\n") // what testTemplate renders
	left := &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: app.TemplateName(resource.EngineMoby, text), Namespace: "paddock",
			Labels: map[string]string{app.LabelApp: resource.AppName}},
		Data: map[string]string{resource.TemplateKey: string(text)}}
	controller.Own(left, a)
	obj, err := e.st.Create(e.ctx, left)
	if err != nil {
		t.Fatal(err)
	}
	e.tmpl.fail(nil)
	e.patchApp(`{"metadata":{"labels":{"nudge":"1"}}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	if ref := e.getVM().Spec.TemplateRef; ref != left.Metadata.Name {
		t.Fatalf("the VM uses %q, not the template left behind", ref)
	}
	cms, _, err := e.st.List(e.ctx, store.ListOptions{Kind: resource.KindConfigMap, Labels: labels.SelectorFromSet(labels.Set{app.LabelApp: resource.AppName})})
	if err != nil || len(cms) != 1 || cms[0].GetMeta().UID != obj.GetMeta().UID {
		t.Fatalf("the App's templates: %d (%v); want the one left behind", len(cms), err)
	}
}

// The App's spec.cold is its VM's: set when the VM is made and when it
// changes. A change of it alone restarts nothing: the VM keeps running its
// template, and the App settles again at once.
func TestTheAppPassesColdToItsVMAndAChangeOfItRestartsNothing(t *testing.T) {
	e := start(t, true)
	e.engine.set(true)
	a := e.createApp(resource.AppSpec{Running: true, Cold: true, CPUs: 1, Memory: "1GiB"})
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
	v := e.getVM()
	if !v.Spec.Cold {
		t.Fatalf("the App's VM was made with spec %+v; want cold", v.Spec)
	}
	ref, restarts, template := v.Spec.TemplateRef, v.Status.RestartCount, e.template()

	for _, cold := range []bool{false, true} {
		a = e.patchApp(fmt.Sprintf(`{"spec":{"cold":%t}}`, cold))
		e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonRunning)
		v = e.getVM()
		if v.Spec.Cold != cold || !v.Spec.Running {
			t.Fatalf("after the App's cold became %t the VM's spec is %+v", cold, v.Spec)
		}
		if v.Spec.TemplateRef != ref || v.Status.RestartCount != restarts || e.template() != template {
			t.Fatalf("a change of cold alone restarted the VM: templateRef %q (was %q), restarts %d (were %d)", v.Spec.TemplateRef, ref, v.Status.RestartCount, restarts)
		}
	}

	// A stop carries it too.
	a = e.patchApp(`{"spec":{"running":false,"cold":false}}`)
	e.waitSettled(a.Metadata.Generation, metav1.ConditionTrue, resource.ReasonStopped)
	if v = e.getVM(); v.Spec.Cold || v.Spec.Running {
		t.Fatalf("after a stop without cold the VM's spec is %+v", v.Spec)
	}
}
