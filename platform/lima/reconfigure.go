package lima

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/atomicfile"
)

// Reconfigure replaces the template of a stopped instance, as `limactl
// edit` does: Lima checks it for this instance first (a *ValidationError
// says what is wrong), and the instance's lima.yaml is replaced whole. The
// next Start boots with it.
func (d *Driver) Reconfigure(_ context.Context, name string, templateYAML []byte) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	if inst.HostAgentAlive {
		return fmt.Errorf("instance %s runs; stop it before changing its template", name)
	}
	if _, err := d.load(name, templateYAML); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(inst.Dir, filenames.LimaYAML), templateYAML, 0o644)
}
