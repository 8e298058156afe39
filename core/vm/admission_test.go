package vm_test

import (
	"errors"
	"strings"
	"testing"

	"paddock.dev/paddock/core/controller"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
)

// invalidField returns the one field err, an Invalid error, names, and its
// message.
func invalidField(t *testing.T, err error) (string, string) {
	t.Helper()
	if resource.ReasonOf(err) != resource.ReasonInvalid {
		t.Fatalf("err = %v, want Invalid", err)
	}
	var e *resource.Error
	if !errors.As(err, &e) || len(e.Fields) != 1 {
		t.Fatalf("err = %#v, want one field", err)
	}
	return e.Fields[0].Field, e.Fields[0].Message
}

func TestAdmissionNamesTheFieldAtFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.createTemplate("debian", debianTemplate)
	e.createTemplate("bad", "cpus: 0\n")
	e.createTemplate("empty", "")
	e.createTemplate("notyaml", "cpus: [1\n")
	if _, err := e.st.Create(t.Context(), &resource.ConfigMap{
		TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
		Metadata: resource.ObjectMeta{Name: "nokey", Namespace: "default"},
		Data:     map[string]string{"other": "x"},
	}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, ref string
		params    map[string]any
		field     string
		message   string
	}{
		{"missing template", "absent", nil, "spec.templateRef", `configmap "absent" does not exist`},
		{"no template key", "nokey", nil, "spec.templateRef", `has no "template" key`},
		{"param at fault", "debian", map[string]any{"cpus": 0}, "spec.params.cpus", "from 1 to"},
		{"template at fault", "bad", nil, "template.cpus", "at least 1"},
		{"param at fault, deep down", "debian", map[string]any{"images": []any{map[string]any{"arch": "x86_64"}}}, "spec.params.images[0].location", "must not be empty"},
		{"params over a broken template", "notyaml", map[string]any{"memory": "2GiB"}, "template", "line 1"},
		{"a broken template", "notyaml", nil, "template", "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVM("dev", false)
			v.Spec.TemplateRef, v.Spec.Params = tc.ref, tc.params
			_, err := e.st.Create(t.Context(), v)
			field, msg := invalidField(t, err)
			if field != tc.field || !strings.Contains(msg, tc.message) {
				t.Errorf("refused at %s: %q; want %s: ...%s...", field, msg, tc.field, tc.message)
			}
		})
	}
	if _, err := e.st.Get(t.Context(), resource.Key{Kind: resource.KindVM.Name, Namespace: "default", Name: "dev"}); !resource.IsNotFound(err) {
		t.Errorf("a refused VM was stored: %v", err)
	}
}

func TestAdmissionChecksEditsOfTheCopy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	key := e.createVM("dev", false)
	e.waitCond(key, resource.VMRunning, false, resource.ReasonStopped)

	_, err := controller.Update(t.Context(), e.st, copyKey("dev"), func(cm *resource.ConfigMap) (bool, error) {
		cm.Data[resource.TemplateKey] = "cpus: 0\n"
		return true, nil
	})
	if field, _ := invalidField(t, err); field != "data.template: cpus" {
		t.Errorf("refused at %s, want data.template: cpus", field)
	}
	// A change that leaves the template and params alone is not checked
	// again: a VM whose template went bad can still be stopped.
	if _, err := controller.Update(t.Context(), e.st, resource.Key{Kind: resource.KindConfigMap.Name, Namespace: "default", Name: "debian"},
		func(cm *resource.ConfigMap) (bool, error) {
			cm.Data[resource.TemplateKey] = "cpus: 0\n"
			return true, nil
		}); err != nil {
		t.Fatal(err)
	}
	e.setRunning(key, true)
	e.running(key)
}

func TestRenderMergesParams(t *testing.T) {
	t.Parallel()
	out, err := vm.Render("cpus: 1\nmounts:\n- location: /a\n- location: /b\nvideo:\n  display: none\n",
		map[string]any{"cpus": 2, "mounts": []any{map[string]any{"location": "/c"}}, "video": nil})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "cpus: 2\nmounts:\n- location: /c\n"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	same, err := vm.Render("anything: [", nil)
	if err != nil || string(same) != "anything: [" {
		t.Errorf("Render without params = %q, %v: want the template as is", same, err)
	}
}
