//go:build !linux

package lima

import limastore "github.com/lima-vm/lima/pkg/store"

// sshShimEnv adds nothing off Linux: the shim that speeds up Lima's SSH
// check is Linux-only (it replaces itself with ssh through exec).
func (d *Driver) sshShimEnv() ([]string, error) { return nil, nil }

// sshShimWaitEnv adds nothing off Linux, where no shim runs.
func sshShimWaitEnv(*limastore.Instance, bool) []string { return nil }
