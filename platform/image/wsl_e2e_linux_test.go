package image

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/platform/linux/systemdtest"
)

// TestWSLRootFileSystemBoots builds the WSL2 root file system that
// Windows' App boots (build.sh --wsl) and boots its systemd as WSL2 does
// (its /etc/wsl.conf asks for systemd), in namespaces: sshd comes up with
// the host keys it made, Docker's socket listens, and the units that read
// QEMU's cidata disk stay off (Lima runs its boot scripts through wsl.exe
// there). What never ran: WSL2 itself, and Lima's boot scripts in it.
func TestWSLRootFileSystemBoots(t *testing.T) {
	systemdtest.RequireE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	build := exec.CommandContext(ctx, "../linux/guestimage/build.sh", "--wsl")
	build.Stderr = os.Stderr
	out, err := build.Output()
	if err != nil {
		t.Fatalf("build.sh --wsl: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	t.Logf("built or found %s in %v", dir, time.Since(start).Round(time.Second))
	if !strings.HasPrefix(filepath.Base(dir), wslPrefix) {
		t.Fatalf("build.sh --wsl made %s, not a %s directory: QEMU's hosts would take it", dir, wslPrefix)
	}
	img, err := LoadBuilt(dir)
	if err != nil || img.Location != filepath.Join(dir, "rootfs.tar.gz") || img.Kernel != nil {
		t.Fatalf("LoadBuilt(%s) = %+v, %v; want its tarball and no kernel", dir, img, err)
	}

	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "tar", "--numeric-owner", "-xzf", img.Location, "-C", root).CombinedOutput(); err != nil {
		t.Fatalf("unpack: %v\n%s", err, out)
	}
	for _, f := range []string{"boot/vmlinuz", "vmlinuz", "lib/modules"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("the root file system holds %s: WSL2 boots its own kernel", f)
		}
	}
	c := systemdtest.BootRoot(t, root)
	if got := c.Run("cat", "/etc/wsl.conf"); !strings.Contains(got, "systemd=true") {
		t.Errorf("/etc/wsl.conf does not ask WSL2 for systemd:\n%s", got)
	}
	for _, unit := range []string{"ssh.service", "docker.socket", "containerd.service"} {
		if got := strings.TrimSpace(c.Run("systemctl", "is-active", unit)); got != "active" {
			t.Errorf("%s is %s", unit, got)
		}
	}
	c.Run("test", "-s", "/etc/ssh/ssh_host_ed25519_key")
	for _, unit := range []string{"lima-init.service", "lima-boot.service", "lima-guestagent-early.service"} {
		got, _ := c.Command("systemctl", "is-enabled", unit).Output()
		if state := strings.TrimSpace(string(got)); state != "disabled" {
			t.Errorf("%s, which reads QEMU's cidata disk, is %s", unit, state)
		}
	}
}
