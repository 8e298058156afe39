package resource

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	units "github.com/docker/go-units"
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
	if app.Spec.ContainerEngine.Name != EngineMoby || app.Spec.CPUs != min(2, runtime.NumCPU()) || app.Spec.Disk != "64GiB" || app.Spec.Namespace != "paddock" {
		t.Fatalf("defaults not applied: %+v", app.Spec)
	}
	if mem, err := units.RAMInBytes(app.Spec.Memory); err != nil || mem > 4<<30 || (hostMemory() > 0 && mem > hostMemory()) {
		t.Fatalf("default memory %q does not fit 4GiB and the host's %d bytes", app.Spec.Memory, hostMemory())
	}

	bad := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: "other", Namespace: "x"},
		Spec: AppSpec{ContainerEngine: ContainerEngine{Name: "podman"}, Memory: "lots", Disk: "1MiB", CPUs: runtime.NumCPU() + 1, Namespace: "Not_A_Label"}}
	fields := fieldsOf(t, DefaultAndValidate(KindApp, bad, nil))
	for _, f := range []string{"metadata.name", "metadata.namespace", "spec.containerEngine.name", "spec.memory", "spec.disk", "spec.cpus", "spec.namespace"} {
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

func TestAppSizesAreBoundedByTheHost(t *testing.T) {
	if hostMemory() == 0 {
		t.Skip("this OS does not report its memory, so memory is not bounded")
	}
	app := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: AppName},
		Spec: AppSpec{Memory: units.BytesSize(float64(hostMemory() + 1<<30)), CPUs: runtime.NumCPU()}}
	err := DefaultAndValidate(KindApp, app, nil)
	fields := fieldsOf(t, err)
	if !fields["spec.memory"] || fields["spec.cpus"] || !strings.Contains(err.Error(), "the host's memory") {
		t.Fatalf("memory above the host's must be refused (and all the host's CPUs allowed): %v", err)
	}
}

func TestContainerEngineIsAnObject(t *testing.T) {
	var spec AppSpec
	err := json.Unmarshal([]byte(`{"containerEngine":"moby"}`), &spec)
	if err == nil || !strings.Contains(err.Error(), `write {"name": "moby"}`) {
		t.Fatalf("a bare engine string must be refused naming the object form, got %v", err)
	}
	if err := json.Unmarshal([]byte(`{"containerEngine":{"name":"containerd"}}`), &spec); err != nil || spec.ContainerEngine.Name != EngineContainerd {
		t.Fatalf("got %+v, %v", spec, err)
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

func TestVMParamsAreRangeChecked(t *testing.T) {
	vm := func(params map[string]any) *VM {
		return &VM{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "VM"}, Metadata: ObjectMeta{Name: "dev", Namespace: "default"},
			Spec: VMSpec{TemplateRef: "t", Params: params}}
	}
	for _, c := range []struct {
		params map[string]any
		field  string // "" when valid
	}{
		{map[string]any{"cpus": float64(1), "memory": "512MiB", "disk": "8GiB"}, ""},
		{map[string]any{"cpus": float64(runtime.NumCPU())}, ""},
		{map[string]any{"cpus": float64(runtime.NumCPU() + 1)}, "spec.params.cpus"},
		{map[string]any{"cpus": float64(-1)}, "spec.params.cpus"},
		{map[string]any{"cpus": 1.5}, "spec.params.cpus"},
		{map[string]any{"cpus": 1e300}, "spec.params.cpus"},
		{map[string]any{"cpus": "2"}, "spec.params.cpus"},
		{map[string]any{"memory": "99999999999999999999GiB"}, "spec.params.memory"},
		{map[string]any{"disk": "99999999999999999999GiB"}, "spec.params.disk"},
		{map[string]any{"memory": float64(4)}, "spec.params.memory"},
	} {
		err := DefaultAndValidate(KindVM, vm(c.params), nil)
		var e *Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%v: %v", c.params, err)
		case c.field != "" && (!errors.As(err, &e) || len(e.Fields) == 0 || e.Fields[0].Field != c.field):
			t.Errorf("%v: got %v, want an error naming %s", c.params, err, c.field)
		}
	}
}

func TestSuspendWhenIdleIsADurationOfAtLeastTenSeconds(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "0": 0, "0s": 0, "10s": 10 * time.Second, "15m": 15 * time.Minute, "1h30m": 90 * time.Minute} {
		app := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: AppName}, Spec: AppSpec{SuspendWhenIdle: v}}
		if err := DefaultAndValidate(KindApp, app, nil); err != nil {
			t.Errorf("suspendWhenIdle %q: %v", v, err)
		}
		if got := app.Spec.IdleTimeout(); got != want {
			t.Errorf("suspendWhenIdle %q: IdleTimeout %s, want %s", v, got, want)
		}
	}
	for v, says := range map[string]string{"15": "not a duration", "soon": "not a duration", "9s": "at least 10s", "-1m": "at least 10s"} {
		app := &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: AppName}, Spec: AppSpec{SuspendWhenIdle: v}}
		err := DefaultAndValidate(KindApp, app, nil)
		if !fieldsOf(t, err)["spec.suspendWhenIdle"] || !strings.Contains(err.Error(), says) {
			t.Errorf("suspendWhenIdle %q: %v; want it refused, saying %q", v, err, says)
		}
	}
}

// The suspension holds for the generation it names, on an App that
// should run.
func TestSuspendedHoldsForTheGenerationItNames(t *testing.T) {
	a := &App{Metadata: ObjectMeta{Generation: 3, Annotations: map[string]string{AnnotationSuspended: "3"}}, Spec: AppSpec{Running: true}}
	if !a.Suspended() {
		t.Fatal("an App suspended at its generation is not Suspended")
	}
	a.Metadata.Generation = 4
	if a.Suspended() {
		t.Fatal("a spec change did not end the suspension")
	}
	a.Metadata.Generation, a.Spec.Running = 3, false
	if a.Suspended() {
		t.Fatal("a stopped App is Suspended")
	}
}
