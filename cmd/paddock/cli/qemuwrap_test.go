//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The QEMU wrapper hands QEMU (here echo, which prints what it got) a
// translation cache of PADDOCK_QEMU_TB_SIZE MiB and a balloon that returns
// the pages the guest frees; a size that is none is refused, named.
func TestQEMUWrapperSizesTheCacheAndAddsTheBalloon(t *testing.T) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "qemu-system-x86_64")
	if err := os.Symlink(paddockBin, link); err != nil {
		t.Fatal(err)
	}
	run := func(tbSize string) (string, error) {
		cmd := exec.Command(link, "-m", "1024", "-cpu", "host", "-machine", "q35,accel=kvm", "-drive", "file=disk,if=virtio")
		cmd.Env = append(os.Environ(), "PADDOCK_QEMU_REAL="+echo, "PADDOCK_QEMU_TB_SIZE="+tbSize)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	want := "-m 1024 -cpu max -machine q35,vmport=off -drive file=disk,if=virtio -accel tcg,thread=multi,tb-size=%s -device virtio-balloon-pci,free-page-reporting=on"
	for tbSize, size := range map[string]string{"": "512", "64": "64"} {
		if out, err := run(tbSize); err != nil || out != strings.Replace(want, "%s", size, 1) {
			t.Errorf("PADDOCK_QEMU_TB_SIZE=%q: QEMU got %q (%v)", tbSize, out, err)
		}
	}
	if out, err := run("64M"); err == nil || !strings.Contains(out, `PADDOCK_QEMU_TB_SIZE="64M" is not a size in MiB`) {
		t.Errorf("PADDOCK_QEMU_TB_SIZE=64M: %q (%v); want it refused", out, err)
	}
}
