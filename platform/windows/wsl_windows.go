package windows

import (
	"context"
	"fmt"
	"strings"

	"github.com/lima-vm/lima/pkg/executil"
)

// Unregister unregisters the WSL distribution distro, with its disk, when
// WSL lists it; one that is not registered is left alone.
func Unregister(ctx context.Context, distro string) error {
	out, err := executil.RunUTF16leCommand([]string{"wsl.exe", "--list", "--quiet"}, executil.WithContext(ctx))
	if err != nil && !strings.Contains(out, "no installed distributions") {
		return fmt.Errorf("wsl.exe --list --quiet: %w (%s)", err, strings.TrimSpace(out))
	}
	if !Listed(out, distro) {
		return nil
	}
	if out, err := executil.RunUTF16leCommand([]string{"wsl.exe", "--unregister", distro}, executil.WithContext(ctx)); err != nil {
		return fmt.Errorf("wsl.exe --unregister %s: %w (%s)", distro, err, strings.TrimSpace(out))
	}
	return nil
}
