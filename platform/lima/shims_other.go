//go:build !linux

package lima

// sshShimEnv adds nothing off Linux: the shim that speeds up Lima's SSH
// check is Linux-only (it replaces itself with ssh through exec).
func (d *Driver) sshShimEnv() ([]string, error) { return nil, nil }
