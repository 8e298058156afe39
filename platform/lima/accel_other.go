//go:build !linux

package lima

import (
	"context"
	"errors"

	"github.com/lima-vm/lima/pkg/limayaml"
)

// resolveAccel returns "": off Linux, Lima's driver picks the accelerator
// (hvf on macOS, whpx for QEMU on Windows) and Paddock does not probe.
func (d *Driver) resolveAccel(context.Context, limayaml.Arch) (string, error) {
	return "", nil
}

// qemuEnv adds nothing off Linux: Lima runs QEMU as it is.
func (d *Driver) qemuEnv(string, limayaml.Arch) ([]string, error) { return nil, nil }

// resumeSupported says why guests do not resume saved states off Linux:
// Lima runs QEMU there as it is, without Paddock's QEMU wrapper, which
// hands QEMU the state to resume.
func resumeSupported(limayaml.Arch) error {
	return errors.New("saved states are resumed on Linux hosts only, for now")
}

// qemuVersion is not needed off Linux, where nothing resumes.
func qemuVersion(context.Context, limayaml.Arch) (string, error) { return "", nil }
