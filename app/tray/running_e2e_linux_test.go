package tray

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/lima"
)

// TestTrayRunningApp boots the App's VM once from the tray's Start, on the
// image platform/linux/guestimage builds, and uses what a running App
// offers: Copy Docker Context puts on the X clipboard a command that,
// run, makes the host's docker CLI reach the App's engine; Open Shell
// opens the desktop's terminal with a shell in the App's VM. The terminal
// is a stand-in (a script named x-terminal-emulator, first on PATH) that
// types a command into the shell it was given and keeps what it printed:
// a real terminal's screen is not readable here.
func TestTrayRunningApp(t *testing.T) {
	requireE2E(t, "Xvfb", "dbus-daemon", "xclip", "docker", "qemu-system-x86_64")
	e := newE2E(t, 20*time.Minute, withoutSettings)
	e.bootable()
	e.startDaemon()
	t.Cleanup(func() {
		if out, err := e.command("stop", "--timeout=3m").CombinedOutput(); err != nil {
			t.Errorf("paddock stop: %v\n%s", err, out)
		}
	})
	if out, err := e.command("set", "--wait=false", "running=false", "memory=1GiB", "disk=8GiB").CombinedOutput(); err != nil {
		t.Fatalf("paddock set: %v\n%s", err, out)
	}
	shellOut := e.standInTerminal()
	tray, m, notes := e.startTray()

	m.click(m.awaitStatus("Stopped"), menu.LabelStart)
	items := m.awaitWithin("the App running", 15*time.Minute, func(items []menuItem) bool {
		return len(items) > 0 && strings.HasPrefix(items[0].Label, "Running — ")
	})
	if body := notes.await(t, "Paddock is running"); !strings.Contains(body, "1 GiB") {
		t.Errorf("the running App's notification: %q", body)
	}

	m.click(items, menu.LabelCopyContext)
	var copied string
	for deadline := time.Now().Add(10 * time.Second); copied == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, _ := e.x("xclip", "-o", "-selection", "clipboard").Output()
		copied = strings.TrimSpace(string(out))
	}
	if !strings.HasPrefix(copied, "docker context use ") {
		t.Fatalf("the clipboard holds %q after Copy Docker Context", copied)
	}
	if out, err := e.x("sh", "-c", copied).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", copied, err, out)
	}
	// The docker CLI's current context is now the App's.
	docker := e.x("docker", "version", "--format", "{{.Server.Os}}")
	docker.Env = append(slices.Clone(docker.Env), "DOCKER_HOST=", "DOCKER_CONTEXT=")
	if out, err := docker.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "linux" {
		t.Fatalf("docker version after %q: %v\n%s", copied, err, out)
	}

	m.click(items, menu.LabelOpenShell)
	var shell string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		data, _ := os.ReadFile(shellOut)
		if shell = string(data); strings.Contains(shell, "done") {
			break
		}
	}
	vm := appVM(e.vms())
	if vm == nil {
		t.Fatal("the running App has no VM")
	}
	want, err := e.command("vm", "shell", "-n", vm.Metadata.Namespace, vm.Metadata.Name, "hostname").Output()
	if err != nil {
		t.Fatalf("paddock vm shell %s hostname: %v", vm.Metadata.Name, err)
	}
	host, _ := os.Hostname()
	if name := strings.TrimSpace(string(want)); name == "" || name == host || !strings.Contains(shell, "guest="+name+"\n") {
		t.Fatalf("Open Shell's terminal printed %q, want guest=%s (the VM's hostname, not the host's %s)", shell, name, host)
	}

	m.click(m.awaitStatus("Running — "), menu.LabelQuit)
	if err := e.wait(tray, 10*time.Second); err != nil {
		t.Fatalf("the tray did not quit cleanly: %v", err)
	}
}

// bootable makes the run's App boot the image guestimage/build.sh builds:
// paddock-lima, paddock-shim and Lima's guest agent beside paddock, where the daemon
// finds them, and the image as PADDOCK_APP_IMAGE.
func (e *e2e) bootable() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	dir := filepath.Dir(e.bin)
	if err := paddocktest.Build(dir, paddocktest.Helper, paddocktest.Shim); err != nil {
		e.t.Fatal(err)
	}
	if _, err := lima.BuildGuestAgent(ctx, "go", "../..", dir, limayaml.X8664); err != nil {
		e.t.Fatal(err)
	}
	build := exec.CommandContext(ctx, "../../platform/linux/guestimage/build.sh")
	build.Stderr = os.Stderr
	out, err := build.Output()
	if err != nil {
		e.t.Fatalf("build the guest image: %v", err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PADDOCK_APP_IMAGE=") {
			e.env[i] = "PADDOCK_APP_IMAGE=" + strings.TrimSpace(string(out))
		}
	}
}

// standInTerminal puts the stand-in terminal first on the run's PATH and
// returns the file it writes what the shell printed to.
func (e *e2e) standInTerminal() string {
	e.t.Helper()
	dir := e.t.TempDir()
	out := filepath.Join(dir, "shell.out")
	script := "#!/bin/sh\n" +
		"# A stand-in terminal: runs the command after -e, types into it, keeps its output.\n" +
		"[ \"$1\" = -e ] && shift\n" +
		"printf 'echo guest=$(hostname)\\nexit\\n' | \"$@\" >" + out + ".part 2>&1\n" +
		"echo done >>" + out + ".part\n" +
		"mv " + out + ".part " + out + "\n"
	if err := os.WriteFile(filepath.Join(dir, "x-terminal-emulator"), []byte(script), 0o755); err != nil {
		e.t.Fatal(err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + dir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return out
}

// vms lists the daemon's VMs.
func (e *e2e) vms() []resource.VM {
	e.t.Helper()
	objs, _, err := e.client.List(e.ctx, resource.KindVM, "", client.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []resource.VM
	for _, obj := range objs {
		out = append(out, *obj.(*resource.VM))
	}
	return out
}
