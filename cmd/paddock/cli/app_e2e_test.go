//go:build linux

package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	for _, l := range []string{"sh", "echo", "nproc", "cat", "sleep"} {
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

// docker runs the host's docker CLI with the test HOME (its contexts) and
// returns what it wrote to stdout; its stderr, such as a warning, is
// shown only when it fails.
func (e *env) docker(stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("docker", args...)
	cmd.Env = append(e.environ(), "DOCKER_HOST=")
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("docker %v: %v: %s%s", args, err, out, stderr.Bytes())
	}
	return string(out)
}

func TestAppEndToEnd(t *testing.T) {
	e := appEnv(t)
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatal("the App test needs the docker CLI (packaging/ci-deps.sh installs docker.io)")
	}
	t.Parallel() // see vmTemplate
	rootfs := busyboxRootfs(t)
	d := e.serve()
	t.Cleanup(func() {
		e.autostart = true
		e.run("", "delete", "--force", "--timeout=3m")
		stopStartedDaemon(e)
	})

	// No App: stop does nothing and makes nothing.
	if out, _, code := e.run("", "stop"); code != 0 || !strings.Contains(out, "no App") {
		t.Fatalf("stop with no App: exit %d, %q", code, out)
	}
	if _, _, code := e.run("", "get", "app", "app"); code != 1 {
		t.Fatal("stop made an App")
	}

	// A small App sharing the home folder and, read-only, a folder beside
	// it; then start: Settled, the engine answers.
	readOnly, err := os.MkdirTemp("", "pdro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(readOnly) })
	e.mustRun("set", "--wait=false", "running=false", "memory=1GiB", "disk=8GiB", "mounts=~,"+readOnly+":ro")
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
	checkEngineStreams(t, e, "busybox:offline")
	checkNetworks(t, e)
	checkSharedFolders(t, e, readOnly)
	checkShellAndSSHConfig(t, e)

	// run: the context for the child only, its exit code passed through,
	// whatever DOCKER_HOST says.
	run := func(args ...string) (string, int) {
		out, _, code := e.runWith([]string{"DOCKER_HOST=tcp://127.0.0.1:1"}, "", append([]string{"run"}, args...)...)
		return out, code
	}
	if out, code := run("sh", "-c", `echo "$DOCKER_CONTEXT|$DOCKER_HOST"; exit 7`); code != 7 || strings.TrimSpace(out) != "paddock|" {
		t.Fatalf("run: exit %d, %q", code, out)
	}
	if out, code := run("docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}}"); code != 0 || !strings.Contains(out, "busybox:offline") {
		t.Fatalf("run docker: exit %d, %q", code, out)
	}
	image := filepath.Join(t.TempDir(), "busybox.tar")
	saved := exec.Command("docker", "--context", "paddock", "save", "-o", image, "busybox:offline")
	saved.Env = e.environ()
	if out, err := saved.CombinedOutput(); err != nil {
		t.Fatalf("docker save: %v: %s", err, out)
	}

	checkStopResumes(t, e, d)
	checkSuspendAndWake(t, e)

	// A new size and the other engine, set at once, restart the VM into
	// them with one boot (each boot costs some 50 s of CPU under
	// emulation): the guest reports the size, and containerd answers, its
	// ctr imports the image and runs it. The memory grows rather than the
	// CPUs shrink, so that the boot and the engine's work after it keep
	// both CPUs (under emulation one costs a third more time).
	e.mustRun("set", "memory=2GiB", "containerEngine.name=containerd", "--timeout=10m")
	if mib := guestMemTotalMiB(t, e, "-n", "paddock", "app"); mib < 1536 {
		t.Fatalf("the guest has %d MiB after memory=2GiB", mib)
	}
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
	checkContainerdSuspendAndWake(t, e)

	// Stop: Running False on the VM and the App; a shutdown, since a
	// container holds the home folder.
	checkStopWithAFolderInUse(t, e)
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
	e.mustRun("delete", "--force", "--timeout=5m")
	if _, _, code := e.run("", "get", "vm", "-n", "paddock", "app"); code != 1 {
		t.Fatal("the VM outlived the App")
	}
	e.mustRun("set", "--timeout=5m", "running=false", "memory=1GiB", "disk=8GiB")
	if s, _ := appCond(e.app(), resource.AppSettled); s != "True/Stopped" {
		t.Fatalf("a new App: Settled %s", s)
	}
}

// checkNetworks checks Docker's networks in the App's VM: a container on
// the default bridge and on a user network gets an interface on each, and
// the guest image's paddock-stale-bridge ran before dockerd started. At a
// later boot it takes the stored default bridge out of dockerd's network
// store, so that dockerd does not restore it only to make it anew (see
// platform/linux/guestimage/README.md; its tests cover that on dockerd's
// own store); at the App's first boot there is no store yet.
func checkNetworks(t *testing.T, e *env) {
	t.Helper()
	const name, network = "pd-nets", "pdnet"
	e.docker("", "--context", "paddock", "network", "create", network)
	e.docker("", "--context", "paddock", "create", "--name", name, "--network", "bridge", "busybox:offline", "cat", "/proc/net/dev")
	defer e.docker("", "--context", "paddock", "rm", name)
	e.docker("", "--context", "paddock", "network", "connect", network, name)
	if out := e.docker("", "--context", "paddock", "start", "-a", name); !strings.Contains(out, "eth0") || !strings.Contains(out, "eth1") {
		t.Errorf("a container on the networks bridge and %s lacks an interface (eth0, eth1): %q", network, out)
	}
	out := e.mustRun("vm", "shell", "-n", "paddock", "app", "sudo", "journalctl", "-b", "-u", "docker.service", "--no-pager")
	if !strings.Contains(out, "paddock-stale-bridge: no network store yet") {
		t.Errorf("dockerd's journal of the App's first boot does not show paddock-stale-bridge finding no network store before dockerd started:\n%s", out)
	}
}

// checkSharedFolders checks the App's shared folders through Docker: a
// file the host writes in the home folder is read by a container's bind
// mount, a file the container writes is the host user's on the host, the
// guest user sees the host user's files as its own, the read-only folder
// refuses a write, and 'paddock status' lists both.
func checkSharedFolders(t *testing.T, e *env, readOnly string) {
	t.Helper()
	proj := filepath.Join(e.home, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "from-host.txt"), []byte("written on the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// One container does it all (each costs seconds under emulation): it
	// reads the host's file, writes its own and then fails to write into
	// the read-only folder, its last command. Its output and its errors
	// are read apart: docker copies the two streams in no fixed order.
	var stdout, stderr bytes.Buffer
	cmd := e.dockerCmd("docker", "run", "--rm", "-v", proj+":/src", "-v", readOnly+":/ro", "busybox:offline", "sh", "-c",
		"cat /src/from-host.txt && echo written in a container >/src/from-container.txt && echo no >/ro/f")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stdout.String() != "written on the host\n" {
		t.Fatalf("a container read %q from the host's file: %s", stdout.String(), stderr.String())
	}
	if err == nil || !strings.Contains(stderr.String(), "Read-only file system") {
		t.Fatalf("a write to the read-only folder: %v: %s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(readOnly, "f")); !os.IsNotExist(err) {
		t.Fatalf("the read-only folder got the file: %v", err)
	}
	back := filepath.Join(proj, "from-container.txt")
	if data, err := os.ReadFile(back); err != nil || string(data) != "written in a container\n" {
		t.Fatalf("the host reads %q (%v) from the container's file", data, err)
	}
	if st, err := os.Stat(back); err != nil || int(st.Sys().(*syscall.Stat_t).Uid) != os.Getuid() {
		t.Fatalf("the file a container wrote as root is not the host user's (uid %d) on the host: %v %+v", os.Getuid(), err, st)
	}
	// The guest user has the host user's uid (1000 for root, who is no
	// guest user), so a non-root host user's files are its own.
	owner := strings.TrimSpace(e.mustRun("vm", "shell", "-n", "paddock", "app", "--", "sudo", "stat", "-c", "%u", back))
	guest := strings.TrimSpace(e.mustRun("vm", "shell", "-n", "paddock", "app", "--", "id", "-u"))
	if owner != strconv.Itoa(os.Getuid()) || (os.Getuid() > 0 && guest != owner) || (os.Getuid() == 0 && guest != "1000") {
		t.Fatalf("in the guest the container's file is uid %s's, the guest user is %s; the host user is %d", owner, guest, os.Getuid())
	}
	if out := e.mustRun("status"); !strings.Contains(out, "Shared:      ~ (writable), "+readOnly+" (read-only) by 9p") {
		t.Fatalf("status does not say what is shared:\n%s", out)
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

// checkShellAndSSHConfig reaches the running App's VM as a user does:
// 'paddock shell -- CMD' passes the command's output and exit code, and
// OpenSSH with 'paddock ssh-config' logs in as the host "paddock", as
// editors' remote-SSH do.
func checkShellAndSSHConfig(t *testing.T, e *env) {
	t.Helper()
	user := strings.TrimSpace(e.mustRun("shell", "--", "id", "-un"))
	if user == "" || user == "root" {
		t.Errorf("paddock shell runs as %q, want the VM's user", user)
	}
	if _, _, code := e.run("", "shell", "--", "sh", "-c", "exit 5"); code != 5 {
		t.Errorf("paddock shell passed exit code %d, want 5", code)
	}
	// The command holds the App busy: the idle check's own question,
	// asked from within it, finds the lock held.
	if out := e.mustRun("shell", "--", "sh", "-c", resource.AppBusyQuery); strings.TrimSpace(out) == "" {
		t.Errorf("a command of paddock shell does not hold the App busy: %s found no one", resource.AppBusyQuery)
	}
	config := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(config, []byte(e.mustRun("ssh-config")), 0o600); err != nil {
		t.Fatal(err)
	}
	ssh := exec.Command("ssh", "-F", config, "paddock", "id", "-un")
	ssh.Env = e.environ()
	if out, err := ssh.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != user {
		t.Errorf("ssh -F <(paddock ssh-config) paddock id -un: %v %q, want %q", err, out, user)
	}
}
