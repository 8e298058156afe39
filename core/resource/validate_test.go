package resource

import (
	"errors"
	"testing"
)

func fieldsOf(t *testing.T, err error) map[string]bool {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonInvalid {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	out := map[string]bool{}
	for _, f := range e.Fields {
		out[f.Field] = true
	}
	return out
}

func TestAppDefaultsAndValidation(t *testing.T) {
	app := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: AppName}}
	if err := DefaultAndValidate(KindApp, app, nil); err != nil {
		t.Fatal(err)
	}
	if app.Spec.ContainerEngine != EngineMoby || app.Spec.CPUs != 2 || app.Spec.Memory != "4GiB" || app.Spec.Namespace != "paddock" {
		t.Fatalf("defaults not applied: %+v", app.Spec)
	}

	bad := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: "other", Namespace: "x"},
		Spec: AppSpec{ContainerEngine: "podman", Memory: "lots", Disk: "1MiB", CPUs: 999}}
	fields := fieldsOf(t, DefaultAndValidate(KindApp, bad, nil))
	for _, f := range []string{"metadata.name", "metadata.namespace", "spec.containerEngine", "spec.memory", "spec.disk", "spec.cpus"} {
		if !fields[f] {
			t.Errorf("%s not reported; got %v", f, fields)
		}
	}

	moved := *app
	moved.Spec.Namespace = "elsewhere"
	if !fieldsOf(t, DefaultAndValidate(KindApp, &moved, app))["spec.namespace"] {
		t.Fatal("spec.namespace must be immutable")
	}
}

func TestVMAndConfigMapValidation(t *testing.T) {
	v := &VM{TypeMeta: TypeMeta{APIVersion, "VM"}, Metadata: ObjectMeta{Name: "a-name-that-is-far-too-long-for-sockets"}}
	fields := fieldsOf(t, DefaultAndValidate(KindVM, v, nil))
	if !fields["metadata.name"] || !fields["spec.templateRef"] {
		t.Fatalf("got %v", fields)
	}
	if v.Metadata.Namespace != DefaultNamespace {
		t.Fatal("namespace not defaulted")
	}

	cm := &ConfigMap{TypeMeta: TypeMeta{"v1", "ConfigMap"}, Metadata: ObjectMeta{Name: "ok", Labels: map[string]string{"bad key!": "v"}},
		Data: map[string]string{"no/slash": "x"}}
	fields = fieldsOf(t, DefaultAndValidate(KindConfigMap, cm, nil))
	for _, f := range []string{"apiVersion", "metadata.labels[bad key!]", "data[no/slash]"} {
		if !fields[f] {
			t.Errorf("%s not reported; got %v", f, fields)
		}
	}
}

func TestLookupKind(t *testing.T) {
	for in, want := range map[string]string{"vm": "VM", "VMs": "VM", "cm": "ConfigMap", "configmap": "ConfigMap", "app": "App"} {
		k, err := LookupKind(in)
		if err != nil || k.Name != want {
			t.Errorf("LookupKind(%q) = %v, %v; want %s", in, k, err, want)
		}
	}
	if _, err := LookupKind("pods"); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestReasonForStatusInvertsHTTPStatus(t *testing.T) {
	for _, r := range []Reason{ReasonNotFound, ReasonConflict, ReasonInvalid, ReasonForbidden, ReasonGone,
		ReasonTimeout, ReasonBadRequest, ReasonUnauthorized, ReasonUnsupported, ReasonTooLarge, ReasonInternal} {
		if got := ReasonForStatus(r.HTTPStatus()); got != r {
			t.Errorf("ReasonForStatus(%d) = %s, want %s", r.HTTPStatus(), got, r)
		}
	}
	if got := ReasonForStatus(418); got != ReasonInternal {
		t.Errorf("an unknown status gives %s", got)
	}
}
