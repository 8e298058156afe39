package hostcheck

import (
	"fmt"
	"slices"
	"strings"
)

// LinuxFacts are what the Linux gatherer found.
type LinuxFacts struct {
	Arch    string   // the guest architecture in Lima's name: x86_64, aarch64
	Distro  []string // ID and then ID_LIKE from /etc/os-release, to name packages
	QEMU    Program  // qemu-system-<Arch>
	QEMUImg Program
	SSH     Program
	// SFTPServer is where OpenSSH's sftp-server is ("" when it is not),
	// found as Lima finds it (sftpServerCandidates).
	SFTPServer string
	// KVMDevice is why /dev/kvm did not open for reading and writing ("" when it
	// did); KVMMissing says it does not exist at all.
	KVMDevice  string
	KVMMissing bool
	// AccelMode is the accelerator mode asked for ($PADDOCK_QEMU_ACCEL:
	// auto, kvm or tcg; AccelError when it is none of them); Accel what the
	// accelerator choice made of it, and AccelWarning why it fell back to
	// TCG.
	AccelMode    string
	AccelError   string
	Accel        string
	AccelWarning string
	User         string
	InKVMGroup   bool
	Parts        []Part
	Disks        []Disk
}

// Linux checks a Linux host: QEMU and qemu-img, KVM (the device, the
// accelerator choice's probe, the kvm group), ssh and sftp-server,
// Paddock's own programs (f.Parts) and free disk.
func Linux(goarch string, f LinuxFacts) Report {
	checks := []Check{
		programCheck("qemu", f.QEMU, "qemu-system-"+f.Arch, installCommand(f.Distro, "qemu-system-"+f.Arch)),
		programCheck("qemu-img", f.QEMUImg, "qemu-img", installCommand(f.Distro, "qemu-img")),
		kvmDeviceCheck(f),
		accelCheck(f),
		kvmGroupCheck(f),
		programCheck("ssh", f.SSH, "ssh", installCommand(f.Distro, "ssh")),
		sftpServerCheck(f),
	}
	return newReport("linux", goarch, checks, f.Parts, f.Disks)
}

// programCheck fails when the program is missing and reports its version
// otherwise.
func programCheck(name string, p Program, program, fix string) Check {
	c := Check{Name: name}
	switch {
	case p.Path == "":
		c.Status, c.Message, c.Fix = Failed, program+" is not installed (not on PATH)", fix
	case p.Err != "":
		c.Status, c.Message, c.Fix = Failed, fmt.Sprintf("%s does not run: %s", p.Path, p.Err), fix
	default:
		v := version(p.Output)
		if v == "" {
			v = "an unknown version"
		}
		c.Status, c.Message = OK, fmt.Sprintf("%s %s (%s)", program, v, p.Path)
	}
	return c
}

// sftpServerCheck warns without OpenSSH's sftp-server, which serves the
// host folders of a VM that shares them by reverse-sshfs; Lima falls back
// to its own, less robust SFTP server then. (9p, the default, needs none.)
func sftpServerCheck(f LinuxFacts) Check {
	c := Check{Name: "sftp-server"}
	if f.SFTPServer != "" {
		c.Status, c.Message = OK, "OpenSSH's sftp-server ("+f.SFTPServer+"), for folders shared by reverse-sshfs"
		return c
	}
	c.Status = Warning
	c.Message = "OpenSSH's sftp-server is not installed: folders shared by reverse-sshfs (mountType) get Lima's built-in SFTP server, which is less robust"
	c.Fix = installCommand(f.Distro, "sftp-server")
	return c
}

func kvmDeviceCheck(f LinuxFacts) Check {
	c := Check{Name: "kvm device"}
	switch {
	case f.KVMDevice == "":
		c.Status, c.Message = OK, "/dev/kvm opens for reading and writing"
	case f.KVMMissing:
		c.Status = Warning
		c.Message = "/dev/kvm does not exist: guests run under TCG emulation, which is much slower"
		c.Fix = "enable virtualization (VT-x or AMD-V) in the firmware settings, then: sudo modprobe " + kvmModule(f.Arch)
	default:
		c.Status = Warning
		c.Message = "/dev/kvm does not open: " + f.KVMDevice
		c.Fix = kvmGroupFix(f.User)
	}
	return c
}

func kvmModule(arch string) string {
	if arch == "x86_64" {
		return "kvm_intel (or kvm_amd on AMD)"
	}
	return "kvm"
}

// accelCheck reports what the accelerator choice decided, with its reason
// when it fell back to TCG.
func accelCheck(f LinuxFacts) Check {
	c := Check{Name: "accelerator"}
	switch {
	case f.AccelError != "":
		c.Status, c.Message, c.Fix = Failed, f.AccelError, "unset PADDOCK_QEMU_ACCEL"
	case f.QEMU.Path == "":
		c.Status, c.Message = Failed, "cannot probe KVM without QEMU"
		c.Fix = installCommand(f.Distro, "qemu-system-"+f.Arch)
	case f.Accel == "kvm" && f.AccelMode == "kvm":
		c.Status, c.Message = OK, "KVM, as PADDOCK_QEMU_ACCEL=kvm asks (not probed)"
	case f.Accel == "kvm":
		c.Status, c.Message = OK, "KVM: a test guest ran under it"
	case f.AccelMode == "tcg":
		c.Status = Warning
		c.Message = "TCG emulation, as PADDOCK_QEMU_ACCEL=tcg asks: guests run much slower than under KVM"
		c.Fix = "unset PADDOCK_QEMU_ACCEL"
	default:
		c.Status, c.Message = Warning, f.AccelWarning
		if f.KVMDevice == "" {
			c.Fix = "check that nested virtualization is enabled, if this host is itself a VM"
		} else {
			c.Fix = "fix the kvm device (above)"
		}
	}
	return c
}

func kvmGroupCheck(f LinuxFacts) Check {
	c := Check{Name: "kvm group"}
	switch {
	case f.InKVMGroup:
		c.Status, c.Message = OK, fmt.Sprintf("user %s is in the kvm group", f.User)
	case f.KVMDevice == "":
		c.Status, c.Message = OK, fmt.Sprintf("user %s is not in the kvm group, but /dev/kvm opens anyway", f.User)
	case f.KVMMissing:
		c.Status, c.Message = Warning, fmt.Sprintf("user %s is not in the kvm group (there is no /dev/kvm yet either)", f.User)
		c.Fix = kvmGroupFix(f.User)
	default:
		c.Status, c.Message = Warning, fmt.Sprintf("user %s is not in the kvm group, so /dev/kvm does not open", f.User)
		c.Fix = kvmGroupFix(f.User)
	}
	return c
}

func kvmGroupFix(user string) string {
	return "sudo usermod -aG kvm " + user + ", then log out and back in"
}

// linuxPackages names the package that ships each program, by the package
// manager of a distribution family.
var linuxPackages = map[string]map[string]string{
	"apt-get install": {
		"qemu-system-x86_64": "qemu-system-x86", "qemu-system-aarch64": "qemu-system-arm",
		"qemu-img": "qemu-utils", "ssh": "openssh-client", "sftp-server": "openssh-sftp-server",
	},
	"dnf install": {
		"qemu-system-x86_64": "qemu-system-x86-core", "qemu-system-aarch64": "qemu-system-aarch64-core",
		"qemu-img": "qemu-img", "ssh": "openssh-clients", "sftp-server": "openssh-server",
	},
	"pacman -S": {
		"qemu-system-x86_64": "qemu-system-x86", "qemu-system-aarch64": "qemu-system-aarch64",
		"qemu-img": "qemu-img", "ssh": "openssh", "sftp-server": "openssh",
	},
}

// installCommand is the command that installs program on a distribution
// of the given IDs (os-release's ID, then its ID_LIKE).
func installCommand(distro []string, program string) string {
	for _, id := range distro {
		var pm string
		switch {
		case slices.Contains([]string{"debian", "ubuntu"}, id):
			pm = "apt-get install"
		case slices.Contains([]string{"fedora", "rhel", "centos"}, id):
			pm = "dnf install"
		case id == "arch":
			pm = "pacman -S"
		default:
			continue
		}
		return "sudo " + pm + " " + linuxPackages[pm][program]
	}
	return "install " + program + " with the distribution's package manager"
}

// parseOSRelease returns ID and then the words of ID_LIKE from the text
// of /etc/os-release.
func parseOSRelease(text string) []string {
	var id, like []string
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = []string{v}
		case "ID_LIKE":
			like = strings.Fields(v)
		}
	}
	return append(id, like...)
}
