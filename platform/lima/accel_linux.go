package lima

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return err
	}
	if target, err := os.Readlink(link); err != nil || target != executable {
		// Another host agent may be making the same link: make it under a
		// name of our own and rename it into place.
		tmp := fmt.Sprintf("%s.tmp-%d", link, os.Getpid())
		// A leftover of an earlier host agent that had this pid.
		if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.Symlink(executable, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, link); err != nil {
			return err
		}
	}
	if err := os.Setenv("QEMU_SYSTEM_"+strings.ToUpper(arch), link); err != nil {
		return err
	}
	return os.Setenv(linux.EnvRealQEMU, real)
}
