package qemu

import (
	"fmt"
	"path/filepath"
	"strings"
)

// EnvReal names the real QEMU program for the QEMU wrapper.
const EnvReal = "PADDOCK_QEMU_REAL"

// EnvAnswers names the directory where the QEMU wrapper keeps QEMU's
// answers to the questions Lima asks before every start (see isQuestion).
const EnvAnswers = "PADDOCK_QEMU_ANSWERS"

// EnvWrapperAccel tells the QEMU wrapper the accelerator chosen for the
// guest: kvm or tcg. Unset means tcg, as host agents of earlier versions
// ran the wrapper for TCG guests only.
const EnvWrapperAccel = "PADDOCK_QEMU_WRAPPER_ACCEL"

// IsWrapperName reports whether argv0 is a name under which the paddock
// binary acts as the QEMU wrapper: a link named qemu-system-*.
func IsWrapperName(argv0 string) bool {
	return strings.HasPrefix(filepath.Base(argv0), "qemu-system-")
}

// ParseWrapperAccel reads $PADDOCK_QEMU_WRAPPER_ACCEL: kvm or tcg, empty
// meaning tcg.
func ParseWrapperAccel(s string) (Accel, error) {
	switch a := Accel(s); a {
	case "":
		return AccelTCG, nil
	case AccelKVM, AccelTCG:
		return a, nil
	}
	return "", fmt.Errorf("%s=%q: the QEMU wrapper runs guests with kvm or tcg", EnvWrapperAccel, s)
}

// WrapperArgs is what the QEMU wrapper hands the real QEMU for the
// arguments Lima gave it. Every guest gets a balloon that returns the
// pages it frees (AddFreePageReporting). Under KVM that is all; under TCG
// the arguments are also rewritten for emulation with a translation cache
// of tbSize MiB (RewriteForTCG) and, since every cycle counts under
// emulation, lose their display devices (DropDisplayDevices).
func WrapperArgs(accel Accel, args []string, tbSize int) []string {
	if accel == AccelKVM {
		return AddFreePageReporting(args)
	}
	return AddFreePageReporting(RewriteForTCG(DropDisplayDevices(args), tbSize))
}
