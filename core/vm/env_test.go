package vm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore"
	"paddock.dev/paddock/core/store/gormstore/storetest"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/core/vm/vmtest"
)

// stopGrace is the graceful stop the tests' controllers allow.
const stopGrace = 7 * time.Second

// env is a VM controller on the real store, with a fake driver.
type env struct {
	t  *testing.T
	st store.Store
	fd *vmtest.FakeDriver
	// saving, when set, gives the controller the fake as a driver that
	// saves states (vmtest.SavingDriver).
	saving bool
	// ctrlStore, when set, is the store the controller uses instead of st.
	ctrlStore store.Store
	ctrl      *vm.Controller
	stop      context.CancelFunc
	done      chan struct{}
	logger    *slog.Logger
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fd := vmtest.NewFakeDriver()
	dialector, err := gormstore.Dialector(storetest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: dialector, Admit: vm.Admit(fd), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, fd: fd, logger: logger}
	t.Cleanup(func() {
		e.stopController()
		st.Close()
	})
	return e
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// start runs a new VM controller, as a daemon that starts would.
func (e *env) start() {
	e.t.Helper()
	e.stopController()
	st := e.st
	if e.ctrlStore != nil {
		st = e.ctrlStore
	}
	var driver vm.Driver = e.fd
	if e.saving {
		driver = vmtest.SavingDriver{FakeDriver: e.fd}
	}
	e.ctrl = vm.New(st, driver, vm.Options{StopGrace: stopGrace, Logger: e.logger})
	ctx, cancel := context.WithCancel(context.Background())
	e.stop, e.done = cancel, make(chan struct{})
	go func(done chan struct{}) { e.ctrl.Run(ctx); close(done) }(e.done)
}

// stopController ends the controller's run and waits until Run returned.
func (e *env) stopController() {
	if e.stop == nil {
		return
	}
	e.stop()
	<-e.done
	e.stop = nil
}

const debianTemplate = "images:\n- location: /images/debian.qcow2\ncpus: 1\nmemory: 1GiB\n"

func (e *env) createTemplate(name, text string) *resource.ConfigMap {
	e.t.Helper()
	obj, err := e.st.Create(context.Background(), &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: name, Namespace: "default"},
		Data:     map[string]string{resource.TemplateKey: text},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*resource.ConfigMap)
}

func newVM(name string, running bool) *resource.VM {
	return &resource.VM{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindVM.Name},
		Metadata: resource.ObjectMeta{Name: name, Namespace: "default"},
		Spec:     resource.VMSpec{Running: running, TemplateRef: "debian"},
	}
}

// createVM creates a VM from the debian template, which it creates first
// if need be.
func (e *env) createVM(name string, running bool) resource.Key {
	e.t.Helper()
	ctx := context.Background()
	tkey := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"}
	if _, err := e.st.Get(ctx, tkey); resource.IsNotFound(err) {
		e.createTemplate("debian", debianTemplate)
	}
	obj, err := e.st.Create(ctx, newVM(name, running))
	if err != nil {
		e.t.Fatal(err)
	}
	return resource.KeyOf(obj)
}

func (e *env) get(key resource.Key) *resource.VM {
	e.t.Helper()
	obj, err := e.st.Get(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*resource.VM)
}

// patch applies a merge patch, written as a Go value, to the VM's spec and
// metadata.
func (e *env) patch(key resource.Key, patch map[string]any) {
	e.t.Helper()
	data, err := json.Marshal(patch)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.st.Patch(context.Background(), key, data); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) delete(key resource.Key) {
	e.t.Helper()
	if _, err := e.st.Delete(context.Background(), key, store.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) setRunning(key resource.Key, running bool) {
	e.t.Helper()
	e.patch(key, map[string]any{"spec": map[string]any{"running": running}})
}

func (e *env) annotate(key resource.Key, annotation string) {
	e.t.Helper()
	e.patch(key, map[string]any{"metadata": map[string]any{"annotations": map[string]any{annotation: "true"}}})
}

// until calls check whenever a VM changes, and every 20 ms for what only
// the driver shows, until it reports done; after 10 s it fails the test
// with what it waited for and the last state check described.
func (e *env) until(what string, check func() (done bool, last string)) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := e.st.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindVM}, ResourceVersion: e.st.Revision()})
	if err != nil {
		e.t.Fatal(err)
	}
	defer w.Stop()
	changed := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := w.Next(ctx); err != nil {
				return
			}
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		done, last := check()
		if done {
			return
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-ctx.Done():
			e.t.Fatalf("never %s; last: %s", what, last)
		}
	}
}

// waitFor waits until the VM at key satisfies ok, which describes what it
// waits for when it fails.
func (e *env) waitFor(key resource.Key, what string, ok func(*resource.VM) bool) *resource.VM {
	e.t.Helper()
	var v *resource.VM
	e.until(key.String()+" "+what, func() (bool, string) {
		obj, err := e.st.Get(context.Background(), key)
		if err != nil && !resource.IsNotFound(err) {
			e.t.Fatal(err)
		}
		v, _ = obj.(*resource.VM)
		return v != nil && ok(v), describe(v)
	})
	return v
}

// waitGone waits until the VM at key is deleted.
func (e *env) waitGone(key resource.Key) {
	e.t.Helper()
	e.until(key.String()+" deleted", func() (bool, string) {
		obj, err := e.st.Get(context.Background(), key)
		if resource.IsNotFound(err) {
			return true, ""
		}
		v, _ := obj.(*resource.VM)
		return false, fmt.Sprintf("%s (err %v)", describe(v), err)
	})
}

// waitCond waits until the VM's condition typ has status and reason for
// the VM's current generation.
func (e *env) waitCond(key resource.Key, typ string, status bool, reason string) *resource.VM {
	e.t.Helper()
	return e.waitFor(key, fmt.Sprintf("%s=%v (%s)", typ, status, reason), func(v *resource.VM) bool {
		return hasCond(v, typ, status, reason)
	})
}

func hasCond(v *resource.VM, typ string, status bool, reason string) bool {
	want := metav1.ConditionFalse
	if status {
		want = metav1.ConditionTrue
	}
	c := meta.FindStatusCondition(v.Status.Conditions, typ)
	return c != nil && c.Status == want && c.Reason == reason && c.ObservedGeneration == v.Metadata.Generation
}

func describe(v *resource.VM) string {
	if v == nil {
		return "gone"
	}
	data, _ := json.Marshal(struct {
		Meta   resource.ObjectMeta
		Spec   resource.VMSpec
		Status resource.VMStatus
	}{v.Metadata, v.Spec, v.Status})
	return string(data)
}

func cond(v *resource.VM, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(v.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// running waits until the VM at key runs.
func (e *env) running(key resource.Key) *resource.VM {
	e.t.Helper()
	return e.waitCond(key, resource.VMRunning, true, resource.ReasonColdBoot)
}

func ops(calls []vmtest.Call) []vmtest.Op {
	out := make([]vmtest.Op, len(calls))
	for i, c := range calls {
		out[i] = c.Op
	}
	return out
}

// history returns every state the VM at key has been written in so far,
// from the store's watch log: a state that lasted only a moment is there.
func (e *env) history(key resource.Key) []*resource.VM {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	upTo := e.st.Revision()
	w, err := e.st.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindVM, Namespace: key.Namespace}, ResourceVersion: 1})
	if err != nil {
		e.t.Fatal(err)
	}
	defer w.Stop()
	var out []*resource.VM
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			e.t.Fatalf("reading the history of %s: %v", key, err)
		}
		if ev.Key == key && ev.Type != store.Bookmark {
			v := &resource.VM{}
			if err := json.Unmarshal(ev.Object, v); err != nil {
				e.t.Fatal(err)
			}
			out = append(out, v)
		}
		if ev.Revision >= upTo {
			return out
		}
	}
}

// everHad reports whether the VM at key was ever written with condition
// typ set to status and reason, and returns that state.
func (e *env) everHad(key resource.Key, typ string, status bool, reason string) *resource.VM {
	e.t.Helper()
	for _, v := range e.history(key) {
		if hasCond(v, typ, status, reason) {
			return v
		}
	}
	return nil
}
