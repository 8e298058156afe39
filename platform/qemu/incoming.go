package qemu

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// EnvIncoming names a file holding a VM state that QEMU saved with
// `migrate` (see platform/lima's saved states): the QEMU wrapper starts the
// guest from it (IncomingArgs) instead of booting it.
const EnvIncoming = "PADDOCK_QEMU_INCOMING"

// IncomingArgs returns args with QEMU told to load the guest's state from
// the file state rather than boot: `-incoming exec:cat STATE`, which QEMU
// 7.2 and later read as a migration stream (its `file:` transport came
// later). QEMU runs the guest once the state is loaded and exits with an
// error when the state does not load, a truncated file among others.
func IncomingArgs(args []string, state string) []string {
	return append(args, "-incoming", "exec:cat "+shellQuote(state))
}

// SaveURI is the migration URI through which QEMU writes a guest's state
// to file, for IncomingArgs to resume.
func SaveURI(file string) string { return "exec:cat >" + shellQuote(file) }

// shellQuote quotes s for /bin/sh, which QEMU runs exec: commands with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Version returns the first line of `qemu --version` for the QEMU program
// at path, e.g. "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18)":
// a saved state loads only into the QEMU that saved it.
func Version(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}
