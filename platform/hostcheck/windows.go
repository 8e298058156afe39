package hostcheck

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
)

// WindowsFacts are what the Windows gatherer found.
type WindowsFacts struct {
	// Build is the Windows kernel version: major.minor.build, such as
	// 10.0.22631.
	Build string
	// WSL is `wsl --version` (its first lines are the WSL and the WSL
	// kernel versions, in the user's language).
	WSL Program
	// HypervisorPresent: a hypervisor runs (WSL2's, Hyper-V's).
	// VirtualizationFirmware: the CPU's virtualization is enabled in the
	// firmware. Windows reports the latter false while a hypervisor runs.
	HypervisorPresent      bool
	VirtualizationFirmware bool
	Parts                  []Part
	Disks                  []Disk
}

// wsl2Build is the first Windows build whose WSL2 Lima's wsl2 driver runs on.
const wsl2Build = 19041

// Windows checks a Windows host: its build for WSL2, WSL and its version,
// WSL's kernel, that virtualization is enabled, Paddock's own programs
// and free disk.
func Windows(goarch string, f WindowsFacts) Report {
	wslVersion, kernel := parseWSLVersion(f.WSL.Output)
	checks := []Check{windowsBuildCheck(f.Build), wslCheck(f.WSL, wslVersion)}
	if checks[1].Status == OK {
		checks = append(checks, wslKernelCheck(kernel))
	}
	checks = append(checks, virtualizationCheck(f))
	return newReport("windows", goarch, checks, f.Parts, f.Disks)
}

func windowsBuildCheck(build string) Check {
	c := Check{Name: "windows"}
	parts := strings.Split(build, ".")
	n := 0
	if len(parts) == 3 {
		fmt.Sscan(parts[2], &n)
	}
	switch {
	case n == 0:
		c.Status, c.Message = Warning, fmt.Sprintf("cannot tell the Windows build from %q", build)
	case n < wsl2Build:
		c.Status = Failed
		c.Message = fmt.Sprintf("Windows %s: WSL2 needs build %d or later", build, wsl2Build)
		c.Fix = "update Windows: Settings > Windows Update"
	default:
		c.Status, c.Message = OK, "Windows "+build
	}
	return c
}

func wslCheck(p Program, version string) Check {
	c := Check{Name: "wsl"}
	switch {
	case p.Path == "":
		c.Status, c.Message = Failed, "WSL is not installed"
		c.Fix = "wsl --install --no-distribution (in an administrator terminal), then restart"
	case p.Err != "" || version == "":
		// wsl.exe ships with Windows even before WSL is installed, and the
		// WSL built into Windows knows no --version: the current one from
		// the Store, which Lima's wsl2 driver needs, does.
		c.Status, c.Message = Failed, "WSL is not installed, or is the old one built into Windows rather than the current one"
		c.Fix = "wsl --install --no-distribution (in an administrator terminal; wsl --update when WSL is already installed), then restart"
	default:
		c.Status, c.Message = OK, "WSL "+version
	}
	return c
}

func wslKernelCheck(kernel string) Check {
	c := Check{Name: "wsl kernel"}
	if kernel == "" {
		c.Status, c.Message = Failed, "cannot tell WSL's kernel version"
		c.Fix = "wsl --update"
		return c
	}
	c.Status, c.Message = OK, "WSL kernel "+kernel
	return c
}

func virtualizationCheck(f WindowsFacts) Check {
	c := Check{Name: "virtualization"}
	switch {
	case f.HypervisorPresent:
		c.Status, c.Message = OK, "a hypervisor runs"
	case f.VirtualizationFirmware:
		c.Status, c.Message = OK, "enabled in the firmware"
	default:
		c.Status = Failed
		c.Message = "virtualization is off in the firmware and no hypervisor runs: WSL2 cannot start"
		c.Fix = "enable Intel VT-x or AMD-V (SVM) in the firmware (UEFI) settings, then: wsl --install --no-distribution"
	}
	return c
}

// parseWSLVersion reads the WSL version and the kernel version from the
// first two lines of `wsl --version`, whatever the language of their
// labels.
func parseWSLVersion(out string) (wsl, kernel string) {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return "", ""
	}
	// Older WSL prints its usage text for an unknown --version: its lines
	// hold no version number.
	return versionRE.FindString(lines[0]), kernelVersionRE.FindString(lines[1])
}

// kernelVersionRE matches a Linux kernel release such as 5.15.133.1-1.
var kernelVersionRE = regexp.MustCompile(`\d+(\.\d+)+(-[0-9A-Za-z.]+)?`)

// decodeWSLOutput turns what wsl.exe printed into text: wsl.exe writes
// UTF-16LE unless WSL_UTF8=1 reached it, which WSL before 0.64 ignores.
func decodeWSLOutput(b []byte) string {
	if len(b) < 2 || b[1] != 0 {
		return strings.ReplaceAll(string(b), "\r", "")
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	s := string(utf16.Decode(u))
	return strings.ReplaceAll(strings.TrimPrefix(s, "\ufeff"), "\r", "")
}

// parseVirtualization reads the two booleans the gatherer's PowerShell
// command prints, one a line: Win32_ComputerSystem's HypervisorPresent and
// Win32_Processor's VirtualizationFirmwareEnabled.
func parseVirtualization(out string) (hypervisor, firmware bool) {
	lines := strings.Fields(out)
	if len(lines) >= 1 {
		hypervisor = strings.EqualFold(lines[0], "True")
	}
	if len(lines) >= 2 {
		firmware = strings.EqualFold(lines[1], "True")
	}
	return hypervisor, firmware
}
