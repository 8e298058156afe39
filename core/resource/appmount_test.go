package resource

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mountsApp(m []AppMount) *App {
	return &App{TypeMeta: TypeMeta{APIVersion, "App"}, Metadata: ObjectMeta{Name: AppName}, Spec: AppSpec{Mounts: m}}
}

// mountErrors validates an App with mounts m (old the stored ones) and
// returns the message for each field.
func mountErrors(t *testing.T, m, old []AppMount) map[string]string {
	t.Helper()
	var oldApp Object
	if old != nil {
		oldApp = mountsApp(old)
		KindApp.Default(oldApp)
	}
	err := DefaultAndValidate(KindApp, mountsApp(m), oldApp)
	out := map[string]string{}
	if err == nil {
		return out
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %v", err)
	}
	for _, f := range e.Fields {
		out[f.Field] = f.Message
	}
	return out
}

func TestAppSharesTheHomeFolderByDefault(t *testing.T) {
	a := mountsApp(nil)
	if err := DefaultAndValidate(KindApp, a, nil); err != nil {
		t.Fatal(err)
	}
	if len(a.Spec.Mounts) != 1 || a.Spec.Mounts[0] != (AppMount{Location: "~"}) {
		t.Fatalf("default mounts %+v, want the home folder, writable", a.Spec.Mounts)
	}
	// An empty list is kept: it shares nothing, and it survives the store's JSON.
	none := mountsApp([]AppMount{})
	if err := DefaultAndValidate(KindApp, none, nil); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(none)
	var back App
	if err := json.Unmarshal(raw, &back); err != nil || back.Spec.Mounts == nil || len(back.Spec.Mounts) != 0 {
		t.Fatalf("an empty list became %#v through %s", back.Spec.Mounts, raw)
	}
}

func TestAppMountsAreValidated(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"src", "src/app", "data"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(home, "data")

	if errs := mountErrors(t, []AppMount{{Location: "~/src"}, {Location: data, ReadOnly: true}}, nil); len(errs) > 0 {
		t.Fatalf("good mounts refused: %v", errs)
	}
	cases := []struct {
		name  string
		m     []AppMount
		field string
		want  string
	}{
		{"relative", []AppMount{{Location: "src"}}, "spec.mounts[0].location", "neither absolute nor relative to the home folder"},
		{"another user's home", []AppMount{{Location: "~bob/src"}}, "spec.mounts[0].location", "another user's home folder"},
		{"missing", []AppMount{{Location: "~/nope"}}, "spec.mounts[0].location", `"~/nope" cannot be shared: no such folder`},
		{"a file", []AppMount{{Location: "~/file"}}, "spec.mounts[0].location", "is not a folder"},
		{"a guest system path", []AppMount{{Location: "/usr"}}, "spec.mounts[0].location", "would hide the guest's own /usr"},
		{"the root", []AppMount{{Location: "/"}}, "spec.mounts[0].location", "would hide the guest's own /"},
		{"twice", []AppMount{{Location: "~/src"}, {Location: filepath.Join(home, "src") + "/", ReadOnly: true}}, "spec.mounts[1].location", `is spec.mounts[0] "~/src" again`},
		{"inside another", []AppMount{{Location: "~"}, {Location: "~/src/app"}}, "spec.mounts[1].location", `is inside spec.mounts[0] "~"`},
		{"holding another", []AppMount{{Location: "~/src/app"}, {Location: "~/src", ReadOnly: true}}, "spec.mounts[1].location", `holds spec.mounts[0] "~/src/app"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := mountErrors(t, c.m, nil)
			if !strings.Contains(errs[c.field], c.want) || len(errs) != 1 {
				t.Fatalf("errors %v, want %s: ...%s...", errs, c.field, c.want)
			}
		})
	}

	// A shared folder removed since does not block other changes; a new
	// one is checked.
	gone := []AppMount{{Location: "~/gone"}}
	if errs := mountErrors(t, gone, gone); len(errs) > 0 {
		t.Fatalf("a stored mount whose folder went away blocks the App: %v", errs)
	}
	if errs := mountErrors(t, []AppMount{{Location: "~/gone"}, {Location: "~/new"}}, gone); len(errs) != 1 || errs["spec.mounts[1].location"] == "" {
		t.Fatalf("a new missing folder: %v", errs)
	}
}

func TestAppMountType(t *testing.T) {
	a := mountsApp(nil)
	a.Spec.MountType = "nfs"
	err := DefaultAndValidate(KindApp, a, nil)
	if !fieldsOf(t, err)["spec.mountType"] || !strings.Contains(err.Error(), "use 9p or reverse-sshfs") {
		t.Fatalf("mountType nfs: %v", err)
	}
	for _, mt := range append([]string{""}, MountTypes...) {
		a := mountsApp(nil)
		a.Spec.MountType = mt
		if err := DefaultAndValidate(KindApp, a, nil); err != nil {
			t.Errorf("mountType %q: %v", mt, err)
		}
	}
}
