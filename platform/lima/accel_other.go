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

// useAccel has nothing to prepare off Linux.
func useAccel(string, limayaml.Arch, string, string) error { return nil }
