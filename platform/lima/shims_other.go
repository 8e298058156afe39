//go:build !linux

package lima

// installSSHShim does nothing off Linux: the shim that speeds up Lima's
// SSH check is Linux-only (it replaces itself with ssh through exec).
func installSSHShim(string, string) error { return nil }
