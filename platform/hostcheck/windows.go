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
	// VirtualizationErr is why the query for the two above failed or
	// timed out, when it did: then neither is known.
	VirtualizationErr string
	// WSLDefaultVersion is the version WSL registers distributions on by
	// default (DefaultVersion under HKCU\Software\Microsoft\Windows\
	// CurrentVersion\Lxss); 0 when unset, which is 2 for the current WSL.
	WSLDefaultVersion int
	// Cygpath and SSH are what Lima's host agent runs on Windows (Lima's
	// docs: Git for Windows' or MinGit's usr\bin on PATH): cygpath for
	// its SSH control socket's path, and an ssh that takes ControlMaster
	// (`ssh -V` prints its version).
	Cygpath Program
	SSH     Program
	Parts   []Part
	Disks   []Disk
}

// wsl2Build is the first Windows build whose WSL2 Lima's wsl2 driver runs on.
const wsl2Build = 19041

// Windows checks a Windows host: its build for WSL2, WSL and its version,
// WSL's kernel and default version, that virtualization is enabled, the
// cygpath and ssh Lima's host agent runs, Paddock's own programs and free
// disk.
func Windows(goarch string, f WindowsFacts) Report {
	wslVersion, kernel := parseWSLVersion(f.WSL.Output)
	checks := []Check{windowsBuildCheck(f.Build), wslCheck(f.WSL, wslVersion)}
	if checks[1].Status == OK {
		checks = append(checks, wslKernelCheck(kernel), wslDefaultVersionCheck(f.WSLDefaultVersion))
	}
	checks = append(checks, virtualizationCheck(f),
		programCheck("cygpath", f.Cygpath, "cygpath", gitForWindowsFix),
		sshCheck(f.SSH))
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

// wslDefaultVersionCheck: Paddock imports its distributions on WSL 2
// whatever the default, but a default of 1 is what a host where WSL 2
// never ran keeps, and every other distribution lands on WSL 1.
func wslDefaultVersionCheck(v int) Check {
	c := Check{Name: "wsl default version"}
	switch v {
	case 0, 2:
		c.Status, c.Message = OK, "WSL registers distributions on WSL 2"
	default:
		c.Status = Warning
		c.Message = fmt.Sprintf("WSL's default version is %d: Paddock imports its own distributions on WSL 2, other distributions land on WSL %d", v, v)
		c.Fix = "wsl --set-default-version 2"
	}
	return c
}

// gitForWindowsFix is how cygpath and an ssh with ControlMaster get on
// PATH, as Lima's docs for Windows say.
const gitForWindowsFix = `install Git for Windows (winget install Git.Git) or MinGit, and put its usr\bin on PATH before C:\Windows\System32\OpenSSH`

// sshCheck: Lima's host agent keeps a ControlMaster connection to the
// guest, which the OpenSSH built into Windows (OpenSSH_for_Windows) does
// not offer; Git for Windows' ssh does.
func sshCheck(p Program) Check {
	c := programCheck("ssh", p, "ssh", gitForWindowsFix)
	if c.Status == OK && strings.Contains(p.Output, "OpenSSH_for_Windows") {
		c.Status = Failed
		c.Message = fmt.Sprintf("%s is the OpenSSH built into Windows, which has no ControlMaster that Lima needs", p.Path)
		c.Fix = gitForWindowsFix
	}
	return c
}

func virtualizationCheck(f WindowsFacts) Check {
	c := Check{Name: "virtualization"}
	switch {
	case f.HypervisorPresent:
		c.Status, c.Message = OK, "a hypervisor runs"
	case f.VirtualizationFirmware:
		c.Status, c.Message = OK, "enabled in the firmware"
	case f.VirtualizationErr != "":
		c.Status = Warning
		c.Message = "cannot tell whether virtualization is enabled: the query failed: " + f.VirtualizationErr
		c.Fix = "Task Manager > Performance > CPU shows \"Virtualization: Enabled\" when it is"
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

// readVirtualization reads what the gatherer's PowerShell query printed
// (out) and how it ended (err): two booleans, one a line,
// Win32_ComputerSystem's HypervisorPresent and Win32_Processor's
// VirtualizationFirmwareEnabled. A query that failed, timed out or
// printed no booleans tells neither: reason says why.
func readVirtualization(out string, err error) (hypervisor, firmware bool, reason string) {
	lines := strings.Fields(out)
	switch {
	case err != nil:
		msg := strings.TrimSpace(out)
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		if msg != "" {
			return false, false, fmt.Sprintf("%v: %s", err, msg)
		}
		return false, false, err.Error()
	case len(lines) < 2 || !isBool(lines[0]) || !isBool(lines[1]):
		return false, false, fmt.Sprintf("unexpected output %q", strings.TrimSpace(out))
	}
	hypervisor, firmware = parseVirtualization(out)
	return hypervisor, firmware, ""
}

func isBool(s string) bool { return strings.EqualFold(s, "True") || strings.EqualFold(s, "False") }

// parseVirtualization reads the two booleans the gatherer's PowerShell
// command prints, one a line.
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
