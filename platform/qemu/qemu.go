package qemu

import (
	"errors"
	"fmt"
	"os/exec"
)

// debianPackages names the Debian package that ships each QEMU program.
var debianPackages = map[string]string{
	"qemu-system-x86_64":  "qemu-system-x86",
	"qemu-system-aarch64": "qemu-system-arm",
	"qemu-img":            "qemu-utils",
}

// Find looks for the QEMU programs a guest of arch (Lima's name: x86_64,
// aarch64) needs, qemu-system-ARCH and qemu-img, and returns the system
// emulator's path. When one is missing, the error names the Debian package
// to install.
func Find(arch string) (string, error) {
	system := "qemu-system-" + arch
	var errs []error
	path, err := exec.LookPath(system)
	if err != nil {
		errs = append(errs, missing(system, err))
	}
	if _, err := exec.LookPath("qemu-img"); err != nil {
		errs = append(errs, missing("qemu-img", err))
	}
	return path, errors.Join(errs...)
}

func missing(program string, err error) error {
	if pkg, ok := debianPackages[program]; ok {
		return fmt.Errorf("%s is not installed (on Debian and Ubuntu: apt-get install %s): %w", program, pkg, err)
	}
	return fmt.Errorf("%s is not installed: %w", program, err)
}
