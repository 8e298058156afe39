package lima

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/atomicfile"
)

// Reconfigure replaces the template of a stopped instance, as `limactl
// edit` does: Lima checks it for this instance first (a *ValidationError
// says what is wrong), and the instance's lima.yaml is replaced whole. The
// next Start boots with it, and with its kernel command line: Lima copies
// an image's disk, kernel and initrd into the instance once, when it is
// created, which is right for files that belong together, but it writes
// the command line beside them then too, and would boot every later start
// with the first template's (the App's container engine is chosen there).
func (d *Driver) Reconfigure(_ context.Context, name string, templateYAML []byte) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	if inst.HostAgentAlive {
		return fmt.Errorf("instance %s runs; stop it before changing its template", name)
	}
	cfg, err := d.load(name, templateYAML)
	if err != nil {
		return err
	}
	if err := WriteKernelCmdline(inst.Dir, cfg); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(inst.Dir, filenames.LimaYAML), templateYAML, 0o644)
}

// WriteKernelCmdline gives an instance in dir that boots its kernel
// directly the command line of cfg's image for its architecture (the
// first), or none when that image names none, as Lima's preparation of a
// new instance does. Reconfigure and paddock-lima's preparation of a new
// instance from a local image both write it here.
func WriteKernelCmdline(dir string, cfg *limayaml.LimaYAML) error {
	if _, err := os.Stat(filepath.Join(dir, filenames.Kernel)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	path := filepath.Join(dir, filenames.KernelCmdline)
	for _, img := range cfg.Images {
		if cfg.Arch == nil || img.Arch != *cfg.Arch {
			continue
		}
		if img.Kernel != nil && img.Kernel.Cmdline != "" {
			if err := atomicfile.WriteFile(path, []byte(img.Kernel.Cmdline), 0o644); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			return nil
		}
		break
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
