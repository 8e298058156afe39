package lima

import (
	"runtime/debug"

	"github.com/lima-vm/lima/pkg/version"
)

// limaModule is the module path of Lima.
const limaModule = "github.com/lima-vm/lima"

// init gives Lima its version when the link did not stamp one (with
// -ldflags "-X github.com/lima-vm/lima/pkg/version.Version=..."): the
// version of the Lima module this binary was built with. Lima records the
// version in every instance it creates and, without one, warns on each
// inspection that it treats the version as unknown.
func init() {
	if version.Version != "<unknown>" {
		return
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, dep := range bi.Deps {
		if dep.Path == limaModule {
			version.Version = dep.Version
			return
		}
	}
}
