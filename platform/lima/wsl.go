package lima

import (
	"context"
	"path/filepath"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	pwindows "paddock.dev/paddock/platform/windows"
)

// distroRunning reports whether the WSL distribution of the instance in
// dir runs (its directory is named after the instance), as Lima's own
// store asks WSL (store/instance_windows.go), but from names alone, which
// WSL does not translate.
func distroRunning(dir string) (bool, error) {
	return pwindows.Running(context.Background(), pwindows.Distro(filepath.Base(dir)))
}

// importDistro registers the distribution of a wsl2 instance on WSL 2
// from the root file system Prepare put in place, before Lima's driver
// starts it: Lima v1.2.2 imports it without --version (wsl2/vm_windows.go),
// which puts it on WSL 1 where that is WSL's default, and skips its own
// import for a distribution that is registered. Other instances are left
// alone.
func importDistro(ctx context.Context, inst *limastore.Instance) error {
	if inst.Config == nil || *inst.Config.VMType != limayaml.WSL2 {
		return nil
	}
	return pwindows.Import(ctx, pwindows.Distro(inst.Name), inst.Dir, filepath.Join(inst.Dir, filenames.BaseDisk))
}
