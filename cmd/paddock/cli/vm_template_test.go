//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
)

// These tests store templates from files with `vm create --template FILE`
// on the real daemon and let Lima create the machines; nothing boots.

// writeFile writes a file under dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// names lists the objects of a kind in every namespace, sorted.
func (d *runningDaemon) names(t *testing.T, plural string) []string {
	t.Helper()
	status, body, _ := call(t, d.http, "GET", "http://paddock/api/v1alpha1/"+plural, "", "")
	if status != 200 {
		t.Fatalf("list %s: %d %v", plural, status, body)
	}
	var out []string
	items, _ := body["items"].([]any)
	for _, it := range items {
		out = append(out, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
	}
	sort.Strings(out)
	return out
}

func (e *env) configMap(name string) *resource.ConfigMap {
	e.t.Helper()
	cm := &resource.ConfigMap{}
	decodeJSON(e.t, e.mustRun("get", "configmap", name, "-o", "json"), cm)
	return cm
}

// A template file never replaces another template of the same name that
// a VM uses or that the user made: it is stored under a free name, which
// the output says, or, with --template-name, refused with the VMs' names.
// What vm create stored goes with the last VM that uses it.
func TestVMCreateNeverReplacesATemplateInUse(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	dir := t.TempDir()
	first := writeFile(t, dir, "a/debian.yaml", stillTemplate)
	other := writeFile(t, dir, "b/debian.yaml", stillTemplate+"cpus: 1\n")

	if out := e.mustRun("vm", "create", "dev", "--template", first, "--timeout=1m"); !strings.HasPrefix(out, "configmap/debian created\nvm/dev created\n") {
		t.Fatalf("vm create said %q", out)
	}
	if cm := e.configMap("debian"); cm.Metadata.Labels[resource.LabelMadeBy] != resource.MadeByVMCreate {
		t.Fatalf("the stored template is not labelled as made by vm create: %v", cm.Metadata.Labels)
	}
	out := e.mustRun("vm", "create", "x", "--template", other, "--timeout=1m")
	if !strings.HasPrefix(out, "configmap/debian-2 created: configmap/debian holds another template, used by vm/dev\nvm/x created\n") {
		t.Fatalf("vm create from another debian.yaml said %q", out)
	}
	if cm := e.configMap("debian"); cm.Data[resource.TemplateKey] != stillTemplate {
		t.Fatalf("the template of vm dev was changed: %q", cm.Data[resource.TemplateKey])
	}
	if v := e.vm("x"); v.Spec.TemplateRef != "debian-2" {
		t.Fatalf("vm x is made from %q, want debian-2", v.Spec.TemplateRef)
	}
	// The same file again: the same ConfigMap, unchanged.
	if out := e.mustRun("vm", "create", "y", "--template", other, "--timeout=1m"); !strings.HasPrefix(out, "configmap/debian-2 unchanged: configmap/debian holds another template, used by vm/dev\nvm/y created\n") || e.vm("y").Spec.TemplateRef != "debian-2" {
		t.Fatalf("vm create from the same file said %q and used %q, want debian-2 as it is", out, e.vm("y").Spec.TemplateRef)
	}
	// Asked for by name, a template in use is refused, naming its users.
	_, errOut, code := e.run("", "vm", "create", "z", "--template", first, "--template-name", "debian-2", "--timeout=1m")
	if code != 1 || !strings.Contains(errOut, "configmap/debian-2 holds another template, used by vm/x, vm/y") {
		t.Fatalf("--template-name of a template in use: exit %d, %q; want 1 naming vm/x and vm/y", code, errOut)
	}
	if _, _, code := e.run("", "get", "vm", "z"); code != 1 {
		t.Fatal("vm z was created although its template was refused")
	}
	// The user's own template is kept, in use or not.
	applyTemplateCM(e, "mine")
	mine := writeFile(t, dir, "mine.yaml", stillTemplate+"memory: 1GiB\n")
	if out := e.mustRun("vm", "create", "z", "--template", mine, "--timeout=1m"); !strings.HasPrefix(out, "configmap/mine-2 created: configmap/mine holds another template, made by you\n") {
		t.Fatalf("vm create over the user's template said %q", out)
	}
	if got, want := d.names(t, "configmaps"), []string{"debian", "debian-2", "dev-template", "mine", "mine-2", "x-template", "y-template", "z-template"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("configmaps %v, want %v", got, want)
	}

	e.mustRun("vm", "delete", "dev", "x", "--timeout=1m")
	if got, want := d.names(t, "configmaps"), []string{"debian-2", "mine", "mine-2", "y-template", "z-template"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after deleting vm dev and x: configmaps %v, want %v (debian-2 is still vm y's)", got, want)
	}
	e.mustRun("vm", "delete", "y", "z", "--timeout=1m")
	if got, want := d.names(t, "configmaps"), []string{"mine"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after deleting every VM: configmaps %v, want only the user's %v", got, want)
	}
}

// A template Lima's create would reject is refused before anything is
// stored (exit 3), its problems named in the user's file, by line, once.
func TestVMCreateRejectsWhatLimaWouldAndLeavesNothing(t *testing.T) {
	e := newEnv(t, "default")
	d := e.serve()
	dir := t.TempDir()
	root := writeFile(t, dir, "root.yaml", strings.Replace(stillTemplate, "user: {name: paddock, uid: 1000}", "user: {name: root}", 1))
	broken := writeFile(t, dir, "broken.yaml", "images:\n- location: /x.qcow2\n  arch: x86_64\ncpus: [1\n")
	cray := writeFile(t, dir, "cray.yaml", "arch: cray-1\n"+stillTemplate)
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"root user", []string{"--template", root}, []string{root + ":4: user.name: ", `must not be "root"`}},
		{"broken YAML", []string{"--template", broken}, []string{broken + ":4:7: sequence end token"}},
		{"broken YAML under params", []string{"--template", broken, "--param", "cpus=2"}, []string{broken + ":4: "}},
		{"unknown arch", []string{"--template", cray}, []string{cray + ":1: arch: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := e.run("", append([]string{"vm", "create", "bad", "--timeout=1m"}, tc.args...)...)
			if code != 3 {
				t.Fatalf("exit %d, want 3: %s", code, errOut)
			}
			for _, want := range tc.wants {
				if !strings.Contains(errOut, want) {
					t.Errorf("the refusal %q does not say %q", errOut, want)
				}
			}
			for _, not := range []string{"lima.yaml", "(template)", "template."} {
				if strings.Contains(errOut, not) {
					t.Errorf("the refusal %q names %q, no part of the user's file", errOut, not)
				}
			}
			if n := strings.Count(errOut, ": field `"); n > 1 {
				t.Errorf("the refusal says %d problems, want each once: %q", n, errOut)
			}
			if cms, vms := d.names(t, "configmaps"), d.names(t, "vms"); len(cms)+len(vms) > 0 {
				t.Fatalf("a refused template left configmaps %v and vms %v", cms, vms)
			}
		})
	}
}

// Many `vm create --template FILE` and `vm delete` cycles on the real
// daemon, with real (unbooted) Lima machines, leave nothing behind.
//
// 30 cycles: each costs about 1.3 s of CPU (three CLI runs and eight of
// paddock-lima), which under emulation the VM tests beside it have no
// time to spare; 100, as core/vm's TestCreateDeleteCyclesLeaveNothing
// runs on the real store with the fake driver, took 236 s of a CI run.
func TestVMCreateDeleteCyclesLeaveNothing(t *testing.T) {
	t.Parallel() // it boots nothing (see vmTemplate)
	const cycles = 30
	e := newEnv(t, "default")
	d := e.serve()
	file := writeFile(t, t.TempDir(), "debian.yaml", stillTemplate)
	for i := range cycles {
		name := fmt.Sprintf("vm-%d", i)
		e.mustRun("vm", "create", name, "--template", file, "--timeout=1m")
		e.mustRun("vm", "reset", name, "--timeout=1m")
		e.mustRun("vm", "delete", name, "--timeout=1m")
	}
	left := append(d.names(t, "configmaps"), d.names(t, "vms")...)
	machines, err := os.ReadDir(e.path("lima_home"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range machines {
		if !strings.HasPrefix(m.Name(), "_") {
			left = append(left, "machine "+m.Name())
		}
	}
	t.Logf("%d create/reset/delete cycles through the CLI: %d objects left", cycles, len(left))
	if len(left) > 0 {
		t.Fatalf("left after %d cycles: %v", cycles, left)
	}
}

// `paddock vm template` prints a template for the newest guest image built
// on this host, which vm create takes as it is; without one it says how
// to build one.
func TestVMTemplatePrintsOneForTheBuiltImage(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	_, errOut, code := e.run("", "vm", "template")
	if code != 1 || !strings.Contains(errOut, "platform/linux/guestimage/build.sh") {
		t.Fatalf("without an image: exit %d, %q; want 1 saying how to build one", code, errOut)
	}
	// What build.sh leaves in the image cache; nothing boots it here.
	img := filepath.Join(e.home, ".cache", "paddock", "images", "0123456789abcdef")
	writeFile(t, img, "template.yaml", "vmType: qemu\narch: x86_64\nimages:\n- location: "+img+"/debian.qcow2\n  arch: x86_64\n  kernel:\n    location: "+img+
		"/vmlinuz\n    cmdline: root=LABEL=lima-root\n  initrd:\n    location: "+img+"/initrd.img\ncontainerd: {system: false, user: false}\n")
	out := e.mustRun("vm", "template")
	if !strings.Contains(out, "location: "+img+"/debian.qcow2") || !strings.Contains(out, "user: {name: paddock") {
		t.Fatalf("vm template printed %q: want the image's disk and a user", out)
	}
	file := writeFile(t, t.TempDir(), "debian.yaml", out)
	if out := e.mustRun("vm", "create", "dev", "--template", file, "--timeout=1m"); !strings.Contains(out, "condition met: Created=True") {
		t.Fatalf("vm create from the printed template said %q", out)
	}
	// Without --template, vm create makes the VM from the same image,
	// storing its template in the ConfigMap guest-image once.
	out = e.mustRun("vm", "create", "second", "--timeout=1m")
	if !strings.Contains(out, "configmap/guest-image created\n") || !strings.Contains(out, "vm/second condition met: Created=True") {
		t.Fatalf("vm create without --template said %q", out)
	}
	if out := e.mustRun("vm", "create", "third", "--timeout=1m"); strings.Contains(out, "configmap/") || !strings.Contains(out, "vm/third created") {
		t.Fatalf("a second vm create without --template said %q", out)
	}
	if out := e.mustRun("get", "configmap", "guest-image", "-o", "yaml"); !strings.Contains(out, "location: "+img+"/debian.qcow2") {
		t.Fatalf("configmap guest-image: %s", out)
	}
}
