package lima

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/platform/linux"
)

// resolveAccel decides how QEMU accelerates a guest of arch: the mode comes
// from d.Accel, else $PADDOCK_QEMU_ACCEL, else auto, which probes KVM (the
// answer is cached under LimaHome) and falls back to TCG with a warning. A
// guest of another architecture than the host's is always emulated.
func (d *Driver) resolveAccel(ctx context.Context, arch limayaml.Arch) (string, error) {
	qemu, err := linux.LookQEMU(arch)
	if err != nil {
		return "", err
	}
	if !limayaml.IsNativeArch(arch) {
		return string(linux.AccelTCG), nil
	}
	mode := d.Accel
	if mode == "" {
		mode = os.Getenv(linux.EnvAccel)
	}
	m, err := linux.ParseAccel(mode)
	if err != nil {
		return "", err
	}
	accel, warning := linux.DecideAccel(m, func() error {
		return linux.ProbeKVMCached(ctx, qemu, filepath.Join(d.LimaHome, "_paddock", "kvm-probe.json"))
	})
	if warning != "" {
		d.Logger.Warn(warning)
	}
	return string(accel), nil
}

// useAccel prepares this host agent process so that Lima's QEMU driver
// runs QEMU with accel. Lima v1.2.2 asks QEMU for KVM for every
// native-architecture guest on Linux; for TCG, Lima is pointed (through
// $QEMU_SYSTEM_<ARCH>) at a link to the paddock binary named
// qemu-system-<arch>, which rewrites the arguments and execs the real QEMU.
func useAccel(accel string, arch limayaml.Arch, executable, limaHome string) error {
	if accel != string(linux.AccelTCG) || !limayaml.IsNativeArch(arch) {
		return nil
	}
	real, err := linux.LookQEMU(arch)
	if err != nil {
		return err
	}
	link := filepath.Join(limaHome, "_paddock", "bin", "qemu-system-"+arch)
	if err := linkExecutable(executable, link); err != nil {
		return err
	}
	if err := os.Setenv("QEMU_SYSTEM_"+strings.ToUpper(arch), link); err != nil {
		return err
	}
	return os.Setenv(linux.EnvRealQEMU, real)
}
