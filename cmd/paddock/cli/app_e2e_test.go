//go:build linux

package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/core/resource"
)

// The App's end-to-end test: one App VM, reused from step to step, on the
// image platform/linux/guestimage builds, through the real daemon, CLI and
// the host's docker CLI. It runs with PADDOCK_E2E=1 (see vmTemplate).

// appEnv makes a test HOME whose image cache holds the test image, so that
// the daemon's App boots it.
func appEnv(t testing.TB) *env {
	t.Helper()
	vmTemplate(t) // gates on PADDOCK_E2E, builds the guest agent and the image
	out, err := exec.Command("../../../platform/linux/guestimage/build.sh").Output()
	if err != nil {
		t.Fatalf("the guest image: %v", err)
	}
	e := newEnv(t, "default")
	cache := filepath.Join(e.home, ".cache", "paddock", "images")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(strings.TrimSpace(string(out)), filepath.Join(cache, "test")); err != nil {
		t.Fatal(err)
	}
	return e
}

// busyboxRootfs is a root file system of Debian's busybox-static, as a tar
// for 'docker import': an image made offline.
func busyboxRootfs(t testing.TB) string {
	t.Helper()
	bin, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatalf("the App test needs Debian's busybox-static (packaging/ci-deps.sh installs it): %v", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin))})
	tw.Write(bin)
	for _, l := range []string{"sh", "echo", "nproc"} {
		tw.WriteHeader(&tar.Header{Name: "bin/" + l, Typeflag: tar.TypeSymlink, Linkname: "busybox"})
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "busybox-rootfs.tar")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func (e *env) app() *resource.App {
	e.t.Helper()
	a := &resource.App{}
	if err := json.Unmarshal([]byte(e.mustRun("get", "app", "app", "-o", "json")), a); err != nil {
		e.t.Fatal(err)
	}
	return a
}

// appCond returns the App's condition t as "Status/Reason", and whether it
// was observed for the App's generation.
func appCond(a *resource.App, t string) (string, bool) {
	c := meta.FindStatusCondition(a.Status.Conditions, t)
	if c == nil {
		return "", false
	}
	return string(c.Status) + "/" + c.Reason, c.ObservedGeneration == a.Metadata.Generation
}

// docker runs the host's docker CLI with the test HOME (its contexts).
func (e *env) docker(stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("docker", args...)
	cmd.Env = append(e.environ(), "DOCKER_HOST=")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("docker %v: %v: %s", args, err, out)
	}
	return string(out)
}

func TestAppEndToEnd(t *testing.T) {
	e := appEnv(t)
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatal("the App test needs the docker CLI (packaging/ci-deps.sh installs docker.io)")
	}
	rootfs := busyboxRootfs(t)
	e.serve()
	t.Cleanup(func() {
		e.autostart = true
		e.run("", "delete", "--timeout=3m")
		stopStartedDaemon(e)
	})

	// No App: stop does nothing and makes nothing.
	if out, _, code := e.run("", "stop"); code != 0 || !strings.Contains(out, "no App") {
		t.Fatalf("stop with no App: exit %d, %q", code, out)
	}
	if _, _, code := e.run("", "get", "app", "app"); code != 1 {
		t.Fatal("stop made an App")
	}

	// A small App, then start: Settled, the engine answers.
	e.mustRun("set", "--wait=false", "running=false", "memory=1GiB", "disk=8GiB")
	e.mustRun("start", "--timeout=10m")
	a := e.app()
	for _, ct := range []string{resource.AppSettled, resource.AppContainerEngineReady, resource.AppRunning} {
		if s, current := appCond(a, ct); !strings.HasPrefix(s, "True/") || !current {
			t.Fatalf("after start, %s is %s (current %v)", ct, s, current)
		}
	}

	// Docker through the forwarded socket and the instance's context.
	if out := e.docker("", "--context", "paddock", "version", "--format", "{{.Server.Version}}"); !strings.Contains(out, "20.10") {
		t.Fatalf("docker version: %q", out)
	}
	tarball, _ := os.ReadFile(rootfs)
	e.docker(string(tarball), "--context", "paddock", "import", "-", "busybox:offline")
	if out := e.docker("", "--context", "paddock", "run", "--rm", "busybox:offline", "echo", "hello"); strings.TrimSpace(out) != "hello" {
		t.Fatalf("docker run: %q", out)
	}
	// run: the context for the child only, its exit code passed through.
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
	if out, _, code := e.run("", "run", "sh", "-c", `echo "$DOCKER_CONTEXT|$DOCKER_HOST"; exit 7`); code != 7 || strings.TrimSpace(out) != "paddock|" {
		t.Fatalf("run: exit %d, %q", code, out)
	}
	if out, errOut, code := e.run("", "run", "docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}}"); code != 0 || !strings.Contains(out, "busybox:offline") {
		t.Fatalf("run docker: exit %d, %q %q", code, out, errOut)
	}
	image := filepath.Join(t.TempDir(), "busybox.tar")
	saved := exec.Command("docker", "--context", "paddock", "save", "-o", image, "busybox:offline")
	saved.Env = e.environ()
	if out, err := saved.CombinedOutput(); err != nil {
		t.Fatalf("docker save: %v: %s", err, out)
	}

	// A new size restarts the VM into it; the guest reports it.
	e.mustRun("set", "cpus=1", "--timeout=10m")
	if out := e.mustRun("vm", "shell", "-n", "paddock", "app", "nproc"); strings.TrimSpace(out) != "1" {
		t.Fatalf("the guest has %q CPUs after cpus=1", out)
	}

	// The other engine: containerd, its ctr, the image imported and run.
	e.mustRun("set", "containerEngine.name=containerd", "--timeout=10m")
	if s, _ := appCond(e.app(), resource.AppContainerEngineReady); s != "True/Connected" {
		t.Fatalf("containerd: ContainerEngineReady %s", s)
	}
	// The VM booted the new template's kernel command line, which names
	// the engine to start: dockerd no longer runs.
	if out, _, _ := e.run("", "vm", "shell", "-n", "paddock", "app", "systemctl", "is-active", "docker.service"); strings.TrimSpace(out) != "inactive" {
		t.Fatalf("docker.service under containerd: %q", out)
	}
	saveData, _ := os.ReadFile(image)
	if out, errOut, code := e.run(string(saveData), "ctr", "images", "import", "-"); code != 0 {
		t.Fatalf("ctr import: exit %d: %s %s", code, out, errOut)
	}
	if out := e.mustRun("ctr", "run", "--rm", "docker.io/library/busybox:offline", "t1", "echo", "hello"); strings.TrimSpace(out) != "hello" {
		t.Fatalf("ctr run: %q", out)
	}
	// The image carries no nerdctl: paddock nerdctl says so.
	if _, errOut, code := e.run("", "nerdctl", "ps"); code != 1 || !strings.Contains(errOut, "carries no nerdctl") {
		t.Fatalf("nerdctl on an image without it: exit %d: %s", code, errOut)
	}
	// containerd has no docker context: ours is gone, and the current one
	// is what it was before.
	if out := e.docker("", "context", "ls", "-q"); strings.Contains(out, "paddock") {
		t.Fatalf("the docker context stayed after the switch to containerd: %q", out)
	}
	if cfg, _ := os.ReadFile(filepath.Join(e.home, ".docker", "config.json")); strings.Contains(string(cfg), "currentContext") {
		t.Fatalf("config.json still names a current context: %s", cfg)
	}

	// Stop: Running False on the VM and the App.
	e.mustRun("stop", "--timeout=5m")
	if s, current := appCond(e.app(), resource.AppRunning); s != "False/Stopped" || !current {
		t.Fatalf("the App's Running after stop: %s", s)
	}
	if v := e.vm2("paddock", "app"); condTrue(v, resource.VMRunning) {
		t.Fatal("the VM still runs after stop")
	}

	// The App's VM cannot be deleted directly.
	if _, errOut, code := e.run("", "vm", "delete", "-n", "paddock", "app"); code != 3 || !strings.Contains(errOut, "App app") {
		t.Fatalf("direct delete of the App's VM: exit %d, %q", code, errOut)
	}
	// Delete: App and VM gone, and a new App can be made.
	e.mustRun("delete", "--timeout=5m")
	if _, _, code := e.run("", "get", "vm", "-n", "paddock", "app"); code != 1 {
		t.Fatal("the VM outlived the App")
	}
	e.mustRun("set", "--timeout=5m", "running=false", "memory=1GiB", "disk=8GiB")
	if s, _ := appCond(e.app(), resource.AppSettled); s != "True/Stopped" {
		t.Fatalf("a new App: Settled %s", s)
	}
}

// vm2 reads a VM of a namespace.
func (e *env) vm2(ns, name string) *resource.VM {
	e.t.Helper()
	v := &resource.VM{}
	if err := json.Unmarshal([]byte(e.mustRun("get", "vm", "-n", ns, name, "-o", "json")), v); err != nil {
		e.t.Fatal(err)
	}
	return v
}
