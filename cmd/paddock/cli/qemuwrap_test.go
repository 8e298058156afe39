//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paddock.dev/paddock/platform/qemu"
)

// The QEMU wrapper hands QEMU (here echo, which prints what it got) a
// balloon that returns the pages the guest frees, and under TCG a
// translation cache of PADDOCK_QEMU_TB_SIZE MiB; a size that is none is
// refused, named. Under KVM, Lima's arguments are kept as they were.
func TestQEMUWrapperSizesTheCacheAndAddsTheBalloon(t *testing.T) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "qemu-system-x86_64")
	if err := os.Symlink(paddockBin, link); err != nil {
		t.Fatal(err)
	}
	lima := []string{"-m", "1024", "-cpu", "host", "-machine", "q35,accel=kvm", "-drive", "file=disk,if=virtio"}
	run := func(tbSize string, env ...string) (string, error) {
		cmd := exec.Command(link, lima...)
		cmd.Env = append(os.Environ(), append(env, "PADDOCK_QEMU_REAL="+echo, "PADDOCK_QEMU_TB_SIZE="+tbSize)...)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	want := "-m 1024 -cpu max -machine q35,vmport=off -drive file=disk,if=virtio -accel tcg,thread=multi,tb-size=%s -device virtio-balloon-pci,free-page-reporting=on"
	for tbSize, size := range map[string]string{"": strconv.Itoa(qemu.DefaultTBSize), "96": "96"} {
		if out, err := run(tbSize); err != nil || out != strings.Replace(want, "%s", size, 1) {
			t.Errorf("PADDOCK_QEMU_TB_SIZE=%q: QEMU got %q (%v)", tbSize, out, err)
		}
	}
	for _, env := range []string{"PADDOCK_QEMU_WRAPPER_ACCEL=tcg", "PADDOCK_QEMU_WRAPPER_ACCEL="} {
		if out, err := run("64", env); err != nil || out != strings.Replace(want, "%s", "64", 1) {
			t.Errorf("%s: QEMU got %q (%v)", env, out, err)
		}
	}
	kvm := strings.Join(lima, " ") + " -device virtio-balloon-pci,free-page-reporting=on"
	if out, err := run("64M", "PADDOCK_QEMU_WRAPPER_ACCEL=kvm"); err != nil || out != kvm {
		t.Errorf("under KVM: QEMU got %q (%v), want %q", out, err, kvm)
	}
	if out, err := run("64M"); err == nil || !strings.Contains(out, `PADDOCK_QEMU_TB_SIZE="64M" is not a size in MiB`) {
		t.Errorf("PADDOCK_QEMU_TB_SIZE=64M: %q (%v); want it refused", out, err)
	}
}
