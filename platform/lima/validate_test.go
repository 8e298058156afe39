package lima_test

import (
	"context"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
)

// problems returns what Validate found, failing the test on an error.
func problems(t *testing.T, name, template string) []resource.FieldError {
	t.Helper()
	out, err := newDriver(t).Validate(name, []byte(template))
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return out
}

// Lima's create also checks the cloud-init configuration it writes: a
// root user passes Lima's validator but not create. Validate refuses it
// with the template's field.
func TestValidateMakesCreatesChecks(t *testing.T) {
	good := string(fakeImageTemplate(t))
	for _, tc := range []struct{ name, template, field, message string }{
		{"root user", strings.Replace(good, "name: paddock, uid: 1000", "name: root", 1), "user.name", `must not be "root"`},
		{"uid 0", strings.Replace(good, "uid: 1000", "uid: 0", 1), "user.uid", "must not be 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := problems(t, "dev", tc.template)
			if len(got) != 1 || got[0].Field != tc.field || !strings.Contains(got[0].Message, tc.message) {
				t.Fatalf("Validate = %v, want one problem at %s: ...%s...", got, tc.field, tc.message)
			}
		})
	}
}

func TestValidateChecksTheInstanceName(t *testing.T) {
	good := string(fakeImageTemplate(t))
	for _, name := range []string{"bad/name", strings.Repeat("a", 100)} {
		got := problems(t, name, good)
		if len(got) != 1 || got[0].Field != vm.NameField {
			t.Errorf("Validate(%q) = %v, want one problem at %s", name, got, vm.NameField)
		}
	}
}

// YAML that does not parse is named by its line, not by the path of a
// file the user never wrote.
func TestValidateNamesTheLineOfBrokenYAML(t *testing.T) {
	got := problems(t, "dev", "images:\n- location: /x.qcow2\ncpus: [1\n")
	if len(got) != 1 || got[0].Field != "" || !strings.HasPrefix(got[0].Message, "line 3, column 7: ") || strings.Contains(got[0].Message, "lima.yaml") {
		t.Fatalf("Validate = %v, want one problem of the whole template at line 3, naming no lima.yaml", got)
	}
}

// Lima says the same sentence for arch and for the image arch it
// defaulted from it; Validate says it once.
func TestValidateSaysEachProblemOnce(t *testing.T) {
	got := problems(t, "dev", "arch: cray-1\nimages:\n- location: /x.qcow2\n")
	if len(got) != 1 || got[0].Field != "arch" {
		t.Fatalf("Validate = %v, want one problem at arch", got)
	}
}

// A disk larger than the free space is refused for a new instance, and for
// one whose disk would grow past it, but not for an instance whose disk is
// that large already: a change of something else asks nothing more of the
// host, and a disk cannot shrink (an App made on a host that has less
// free space since could not switch its engine).
func TestValidateChecksTheDiskSpaceOfWhatIsNew(t *testing.T) {
	d := newDriver(t)
	huge := string(fakeImageTemplate(t)) + "cpus: 2\ndisk: 1000TiB\n"
	if got := problems(t, "held", huge); len(got) != 1 || got[0].Field != "disk" || !strings.Contains(got[0].Message, "which will hold the VM's disk") {
		t.Fatalf("a new instance with a disk of 1000TiB: %v, want the disk refused", got)
	}
	if err := d.Create(context.Background(), "held", []byte(huge)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Delete(context.Background(), "held") })
	if got := problems(t, "held", strings.Replace(huge, "cpus: 2", "cpus: 1", 1)); len(got) != 0 {
		t.Fatalf("the instance's own disk of 1000TiB with another change: %v, want no problem", got)
	}
	if got := problems(t, "held", strings.Replace(huge, "disk: 1000TiB", "disk: 1001TiB", 1)); len(got) != 1 || got[0].Field != "disk" {
		t.Fatalf("the instance's disk grown to 1001TiB: %v, want the disk refused", got)
	}
}
