package lima

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/limayaml"
)

// guestAgentPackage is Lima's guest agent, which runs inside every VM; the
// go.mod's tool directive pins it to the Lima the driver is built with.
const guestAgentPackage = limaModule + "/cmd/lima-guestagent"

// GuestAgentName is the guest agent's file name for a Linux guest of arch
// (Lima's name: x86_64, aarch64), which Start looks for beside the paddock
// binary or in ../share/lima, ../lib/paddock or ../libexec/paddock from it.
func GuestAgentName(arch limayaml.Arch) string {
	return "lima-guestagent.Linux-" + arch
}

// BuildGuestAgent builds Lima's guest agent for Linux guests of arch into
// dir as GuestAgentName(arch), with the Go toolchain goTool ("go" if empty)
// run in the module at moduleDir, and returns its path. The build is
// static (CGO_ENABLED=0) and stamped with the Lima version from the
// module's requirements, as Lima's own release build is. Packaging puts
// the result in <prefix>/lib/paddock beside <prefix>/bin/paddock.
func BuildGuestAgent(ctx context.Context, goTool, moduleDir, dir string, arch limayaml.Arch) (string, error) {
	if goTool == "" {
		goTool = "go"
	}
	goarch, ok := map[limayaml.Arch]string{limayaml.X8664: "amd64", limayaml.AARCH64: "arm64", limayaml.RISCV64: "riscv64"}[arch]
	if !ok {
		return "", fmt.Errorf("no guest agent build for architecture %q", arch)
	}
	version, err := goOutput(ctx, goTool, moduleDir, nil, "list", "-m", "-f", "{{.Version}}", limaModule)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, GuestAgentName(arch))
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + goarch}
	if _, err := goOutput(ctx, goTool, moduleDir, env, "build", "-trimpath",
		"-ldflags", "-s -w -X "+limaModule+"/pkg/version.Version="+version,
		"-o", out, guestAgentPackage); err != nil {
		return "", err
	}
	return out, nil
}

func goOutput(ctx context.Context, goTool, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", goTool, strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}
