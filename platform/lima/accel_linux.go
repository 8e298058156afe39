package lima

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/platform/qemu"
)

// resolveAccel decides how QEMU accelerates a guest of arch: the mode comes
// from d.Accel, else $PADDOCK_QEMU_ACCEL, else auto, which probes KVM (the
// answer is cached under LimaHome) and falls back to TCG with a warning. A
// guest of another architecture than the host's is always emulated.
func (d *Driver) resolveAccel(ctx context.Context, arch limayaml.Arch) (string, error) {
	system, err := qemu.Find(arch)
	if err != nil {
		return "", err
	}
	if !limayaml.IsNativeArch(arch) {
		return string(qemu.AccelTCG), nil
	}
	mode := d.Accel
	if mode == "" {
		mode = os.Getenv(qemu.EnvAccel)
	}
	m, err := qemu.ParseAccel(mode)
	if err != nil {
		return "", err
	}
	accel, warning := qemu.DecideAccel(m, func() error {
		return qemu.ProbeKVMCached(ctx, system, filepath.Join(d.LimaHome, "_paddock", "kvm-probe.json"))
	})
	if warning != "" {
		d.Logger.Warn(warning)
	}
	if accel == qemu.AccelTCG {
		// Checked here, so that a bad size fails the start with its reason
		// rather than as a QEMU that exited at once.
		if _, err := qemu.ParseTBSize(os.Getenv(qemu.EnvTBSize)); err != nil {
			return "", err
		}
	}
	return string(accel), nil
}

// qemuEnv returns the host agent's environment entries through which
// Lima's QEMU driver runs QEMU with accel. For a native-architecture guest
// Lima is pointed (through $QEMU_SYSTEM_<ARCH>, which it reads from its
// environment) at a link to the paddock binary named qemu-system-<arch>,
// the QEMU wrapper, which execs the real QEMU ($PADDOCK_QEMU_REAL) with a
// balloon that returns the pages the guest frees and, for TCG
// ($PADDOCK_QEMU_WRAPPER_ACCEL), Lima's KVM arguments rewritten for
// emulation: Lima v1.2.2 asks QEMU for KVM for every native guest on
// Linux. The wrapper answers Lima's questions to QEMU (its features and
// version) from a cache in $PADDOCK_QEMU_ANSWERS. A guest of another
// architecture runs as Lima starts it.
func (d *Driver) qemuEnv(accel string, arch limayaml.Arch) ([]string, error) {
	if !limayaml.IsNativeArch(arch) {
		return nil, nil
	}
	real, err := qemu.Find(arch)
	if err != nil {
		return nil, err
	}
	link := filepath.Join(d.LimaHome, "_paddock", "bin", "qemu-system-"+arch)
	if err := linkExecutable(d.shimExecutable(), link); err != nil {
		return nil, err
	}
	return []string{
		"QEMU_SYSTEM_" + strings.ToUpper(arch) + "=" + link,
		qemu.EnvReal + "=" + real,
		qemu.EnvWrapperAccel + "=" + accel,
		qemu.EnvAnswers + "=" + filepath.Join(d.LimaHome, "_paddock", "qemu-answers"),
	}, nil
}

// resumeSupported says why a guest of arch cannot resume a saved state,
// or nil: it resumes through the QEMU wrapper, which runs native guests.
func resumeSupported(arch limayaml.Arch) error {
	if !limayaml.IsNativeArch(arch) {
		return fmt.Errorf("a %s guest on this host runs without Paddock's QEMU wrapper, which resumes saved states", arch)
	}
	return nil
}

// qemuVersion is the version of the QEMU that runs guests of arch.
func qemuVersion(ctx context.Context, arch limayaml.Arch) (string, error) {
	system, err := qemu.Find(arch)
	if err != nil {
		return "", err
	}
	return qemu.Version(ctx, system)
}
