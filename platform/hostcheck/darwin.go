package hostcheck

import "fmt"

// DarwinFacts are what the macOS gatherer found.
type DarwinFacts struct {
	ProductVersion string // sw_vers -productVersion, such as 14.5
	AppleSilicon   bool   // an arm64 Mac, even when this binary runs under Rosetta
	Rosetta        bool   // Rosetta 2 is installed
	QEMU           Program
	QEMUProgram    string // qemu-system-aarch64 or qemu-system-x86_64
	Entitlements   Entitlements
	Parts          []Part
	Disks          []Disk
}

// Darwin checks a macOS host: the version for VZ (13 and later; Lima
// defaults to VZ from 13.5 on Intel), Apple silicon and Rosetta, and QEMU,
// which runs guests where VZ does not; where VZ runs, the signature of the
// program that runs it; then Paddock's own programs and free disk.
func Darwin(goarch string, f DarwinFacts) Report {
	vz := VZRuns(f)
	checks := []Check{macOSCheck(f, vz), cpuCheck(f)}
	if f.AppleSilicon {
		checks = append(checks, rosettaCheck(f))
	}
	checks = append(checks, darwinQEMUCheck(f, vz))
	if vz && f.Entitlements.Program != "" {
		checks = append(checks, vzSignatureCheck(f.Entitlements))
	}
	return newReport("darwin", goarch, checks, f.Parts, f.Disks)
}

// VZRuns reports whether VZ runs the App's guests on the Mac f describes:
// macOS 13 or later, and 13.5 or later on Intel, where VZ cannot boot
// recent Linux kernels before (Lima defaults to QEMU there too). The macOS
// check and the VM type choice (platform/darwin) both follow it.
func VZRuns(f DarwinFacts) bool {
	return atLeast(f.ProductVersion, 13, 0) && (f.AppleSilicon || atLeast(f.ProductVersion, 13, 5))
}

func macOSCheck(f DarwinFacts, vz bool) Check {
	c := Check{Name: "macos"}
	switch {
	case f.ProductVersion == "":
		c.Status, c.Message = Warning, "cannot tell the macOS version"
	case !atLeast(f.ProductVersion, 13, 0):
		c.Status = Warning
		c.Message = fmt.Sprintf("macOS %s: VZ needs macOS 13 or later, so guests run under QEMU, which is slower", f.ProductVersion)
		c.Fix = "softwareupdate --list, then softwareupdate --install with a macOS 13 or later update"
	case !vz: // Intel before 13.5
		c.Status = Warning
		c.Message = fmt.Sprintf("macOS %s on Intel: VZ cannot boot recent Linux kernels before 13.5, so guests run under QEMU", f.ProductVersion)
		c.Fix = "softwareupdate --install --all"
	default:
		c.Status, c.Message = OK, fmt.Sprintf("macOS %s: VZ runs guests", f.ProductVersion)
	}
	return c
}

func cpuCheck(f DarwinFacts) Check {
	if f.AppleSilicon {
		return Check{Name: "cpu", Status: OK, Message: "Apple silicon: arm64 guests, amd64 binaries through Rosetta"}
	}
	return Check{Name: "cpu", Status: OK, Message: "Intel: x86_64 guests"}
}

func rosettaCheck(f DarwinFacts) Check {
	if f.Rosetta {
		return Check{Name: "rosetta", Status: OK, Message: "Rosetta 2 is installed: VZ guests can run amd64 binaries fast"}
	}
	return Check{
		Name: "rosetta", Status: Warning,
		Message: "Rosetta 2 is not installed: amd64 binaries in guests run under slow emulation",
		Fix:     "softwareupdate --install-rosetta --agree-to-license",
	}
}

// darwinQEMUCheck: QEMU is the fallback where VZ runs, and required where
// it does not.
func darwinQEMUCheck(f DarwinFacts, vz bool) Check {
	c := programCheck("qemu", f.QEMU, f.QEMUProgram, "brew install qemu")
	if c.Status == Failed && vz {
		c.Status = Warning
		c.Message += "; VZ runs guests, QEMU is only the fallback"
	}
	return c
}
