package linux

import (
	"path/filepath"
	"strings"
)

// EnvRealQEMU names the real QEMU program for the QEMU wrapper.
const EnvRealQEMU = "PADDOCK_QEMU_REAL"

// IsQEMUWrapperName reports whether argv0 is a name under which the paddock
// binary acts as the QEMU wrapper: a link named qemu-system-*.
func IsQEMUWrapperName(argv0 string) bool {
	return strings.HasPrefix(filepath.Base(argv0), "qemu-system-")
}
