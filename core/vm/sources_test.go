package vm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// createMadeTemplate stores a template as `paddock vm create` does from a
// file: labelled as made by it.
func (e *env) createMadeTemplate(name, text string) {
	e.t.Helper()
	if _, err := e.st.Create(context.Background(), &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{resource.LabelMadeBy: resource.MadeByVMCreate}},
		Data:     map[string]string{resource.TemplateKey: text},
	}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) createVMFrom(name, template string, running bool) resource.Key {
	e.t.Helper()
	v := newVM(name, running)
	v.Spec.TemplateRef = template
	obj, err := e.st.Create(context.Background(), v)
	if err != nil {
		e.t.Fatal(err)
	}
	return resource.KeyOf(obj)
}

func (e *env) deleteAndWait(key resource.Key) {
	e.t.Helper()
	e.delete(key)
	e.waitGone(key)
}

// objects names every object in the store.
func (e *env) objects() []string {
	e.t.Helper()
	var out []string
	for _, k := range []*resource.Kind{resource.KindVM, resource.KindConfigMap} {
		objs, _, err := e.st.List(context.Background(), store.ListOptions{Kind: k})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, obj := range objs {
			out = append(out, resource.KeyOf(obj).String())
		}
	}
	return out
}

func (e *env) exists(name string) bool {
	e.t.Helper()
	_, err := e.st.Get(context.Background(), resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: name})
	if err != nil && !resource.IsNotFound(err) {
		e.t.Fatal(err)
	}
	return err == nil
}

// A template `vm create` stored goes with the last VM that uses it; the
// user's own template stays.
func TestTemplateMadeByVMCreateGoesWithItsLastVM(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	e.createMadeTemplate("made", debianTemplate)
	e.createTemplate("mine", debianTemplate)
	a := e.createVMFrom("a", "made", false)
	b := e.createVMFrom("b", "made", false)
	c := e.createVMFrom("c", "mine", false)
	for _, k := range []resource.Key{a, b, c} {
		e.waitCond(k, resource.VMRunning, false, resource.ReasonStopped)
	}

	e.deleteAndWait(a)
	if !e.exists("made") {
		t.Fatal("the template went with its first VM; vm b still uses it")
	}
	e.deleteAndWait(b)
	if e.exists("made") {
		t.Error("the template vm create made outlived the last VM that used it")
	}
	e.deleteAndWait(c)
	if !e.exists("mine") {
		t.Error("the user's template was deleted with the VM")
	}
}

// Creating and deleting VMs many times, as `vm create --template FILE`
// and `vm delete` do, restarting, resetting and reconfiguring every tenth
// of them on the way, leaves no object behind and never more than one
// template copy per VM.
func TestCreateDeleteCyclesLeaveNothing(t *testing.T) {
	t.Parallel()
	const cycles = 100
	e := newEnv(t)
	e.start()
	most := 0
	for i := range cycles {
		name := fmt.Sprintf("vm-%d", i)
		e.createMadeTemplate("debian", debianTemplate)
		key := e.createVMFrom(name, "debian", true)
		e.running(key)
		if i%10 == 0 {
			e.restartResetReconfigure(key)
		}
		most = max(most, len(e.objects()))
		e.deleteAndWait(key)
		if inst, _ := e.fd.Machine(name); inst.Exists {
			t.Fatalf("cycle %d: the machine of %s is left", i, name)
		}
	}
	left := e.objects()
	t.Logf("%d create/delete cycles (a tenth with restart, reset and new params): at most %d objects at once, %d left", cycles, most, len(left))
	if len(left) != 0 {
		t.Errorf("left after %d cycles: %v", cycles, left)
	}
	if most != 3 {
		t.Errorf("at most %d objects at once, want 3: a VM, its template and one copy", most)
	}
}

// restartResetReconfigure restarts the running VM at key, resets it, and
// gives it new params, waiting for it to run again after each.
func (e *env) restartResetReconfigure(key resource.Key) {
	e.t.Helper()
	e.annotate(key, resource.AnnotationRestartRequested)
	e.waitFor(key, "restarted", func(v *resource.VM) bool {
		return v.Status.RestartCount == 2 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	e.annotate(key, resource.AnnotationResetRequested)
	e.waitFor(key, "reset", func(v *resource.VM) bool {
		_, asked := v.Metadata.Annotations[resource.AnnotationResetRequested]
		return !asked && v.Status.RestartCount == 3 && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
	e.patch(key, map[string]any{"spec": map[string]any{"params": map[string]any{"cpus": 2}}})
	e.waitFor(key, "running with its new params", func(v *resource.VM) bool {
		return v.Status.RestartCount == 4 && !v.Status.RestartNeeded && hasCond(v, resource.VMRunning, true, resource.ReasonColdBoot)
	})
}

// A VM moved to another template lets go of the one `vm create` made for
// it, once no VM uses that one.
func TestTemplateMadeByVMCreateGoesWhenItsLastVMMoves(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	e.createMadeTemplate("made", debianTemplate)
	e.createTemplate("mine", debianTemplate+"cpus: 2\n")
	key := e.createVMFrom("a", "made", false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)

	e.patch(key, map[string]any{"spec": map[string]any{"templateRef": "mine"}})
	e.until("the copy made from mine", func() (bool, string) {
		cm, err := e.getCopy("a")
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(cm.Data[resource.TemplateKey], "cpus: 2"), cm.Data[resource.TemplateKey]
	})
	if e.exists("made") {
		t.Error("the template vm create made outlived the move of the last VM that used it")
	}
	e.createTemplate("debian", debianTemplate+"cpus: 3\n")
	e.patch(key, map[string]any{"spec": map[string]any{"templateRef": "debian"}})
	e.until("the copy made from debian", func() (bool, string) {
		cm, err := e.getCopy("a")
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(cm.Data[resource.TemplateKey], "cpus: 3"), cm.Data[resource.TemplateKey]
	})
	if !e.exists("mine") {
		t.Error("the user's template was deleted when its VM moved on")
	}
}
