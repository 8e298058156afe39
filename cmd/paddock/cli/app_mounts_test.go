package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetMountsReadsFoldersAndReadOnly(t *testing.T) {
	for arg, want := range map[string]string{
		"mounts=~/src,/data:ro":   `{"mounts":[{"location":"~/src"},{"location":"/data","readOnly":true}]}`,
		"mounts= ~ , /data:rw ":   `{"mounts":[{"location":"~"},{"location":"/data"}]}`,
		"mounts=":                 `{"mounts":[]}`,
		"mountType=reverse-sshfs": `{"mountType":"reverse-sshfs"}`,
	} {
		spec, err := appSpecPatch([]string{arg})
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if raw, _ := json.Marshal(spec); string(raw) != want {
			t.Errorf("%s: patch %s, want %s", arg, raw, want)
		}
	}
}

// The daemon checks the folders: a missing one and one inside another are
// refused with exit 3, naming the field; good ones are stored and 'paddock
// status' lists them.
func TestSetMountsIsValidatedAndShownByStatus(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	data := filepath.Join(e.home, "data")
	if err := os.MkdirAll(filepath.Join(e.home, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, want string }{
		{"mounts=~/nope", `spec.mounts[0].location: "~/nope" cannot be shared: no such folder`},
		{"mounts=~,~/src", `spec.mounts[1].location: "~/src" is inside spec.mounts[0] "~", which is shared already`},
		{"mounts=~/src,~/src/:ro", `spec.mounts[1].location: "~/src/" is spec.mounts[0] "~/src" again`},
	} {
		if _, errOut, code := e.run("", "set", "--wait=false", "running=false", c.arg); code != 3 || !strings.Contains(errOut, c.want) {
			t.Errorf("set %s: exit %d, %q; want 3 and %q", c.arg, code, errOut, c.want)
		}
	}
	e.mustRun("set", "--wait=false", "running=false", "mounts=~/src,"+data+":ro")
	if out := e.mustRun("status"); !strings.Contains(out, "Shared:      ~/src (writable), "+data+" (read-only)") {
		t.Errorf("status does not list the shared folders:\n%s", out)
	}
	e.mustRun("set", "--wait=false", "mounts=")
	if out := e.mustRun("status"); !strings.Contains(out, "Shared:      nothing") {
		t.Errorf("status after mounts=:\n%s", out)
	}
}
