package qemu

import (
	"path/filepath"
	"strings"
)

// EnvReal names the real QEMU program for the QEMU wrapper.
const EnvReal = "PADDOCK_QEMU_REAL"

// IsWrapperName reports whether argv0 is a name under which the paddock
// binary acts as the QEMU wrapper: a link named qemu-system-*.
func IsWrapperName(argv0 string) bool {
	return strings.HasPrefix(filepath.Base(argv0), "qemu-system-")
}
