//go:build !linux

package lima

import (
	"context"

	"github.com/lima-vm/lima/pkg/limayaml"
)

// resolveAccel returns "": off Linux, Lima's driver picks the accelerator
// (hvf on macOS, whpx for QEMU on Windows) and Paddock does not probe.
func (d *Driver) resolveAccel(context.Context, limayaml.Arch) (string, error) {
	return "", nil
}

// qemuEnv adds nothing off Linux: Lima runs QEMU as it is.
func (d *Driver) qemuEnv(string, limayaml.Arch) ([]string, error) { return nil, nil }
