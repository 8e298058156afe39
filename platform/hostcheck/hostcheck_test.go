package hostcheck

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

// Captured outputs, as the programs print them.
const (
	debianQEMU    = "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b2)\nCopyright (c) 2003-2022 Fabrice Bellard and the QEMU Project developers\n"
	debianQEMUImg = "qemu-img version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b2)\nCopyright (c) 2003-2022 Fabrice Bellard and the QEMU Project developers\n"
	debianSSH     = "OpenSSH_9.2p1 Debian-2+deb12u10, OpenSSL 3.0.19 27 Jan 2026\n"
	brewQEMU      = "QEMU emulator version 9.2.0\nCopyright (c) 2003-2024 Fabrice Bellard and the QEMU Project developers\n"
	wslEnglish    = "WSL version: 2.0.14.0\r\nKernel version: 5.15.133.1-1\r\nWSLg version: 1.0.59\r\nMSRDC version: 1.2.4677\r\n" +
		"Direct3D version: 1.611.1-81528511\r\nDXCore version: 10.0.25131.1002-220531-1700.rs-onecore-base2-hyp\r\nWindows version: 10.0.22631.2861\r\n"
	wslGerman = "WSL-Version: 2.3.26.0\r\nKernelversion: 5.15.167.4-1\r\nWSLg-Version: 1.0.65\r\n"
	// The WSL built into Windows prints its usage for --version.
	wslInbox        = "Copyright (c) Microsoft Corporation. All rights reserved.\r\n\r\nUsage: wsl.exe [Argument] [Options...] [CommandLine]\r\n"
	debianOSRelease = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n"
	ubuntuOSRelease = "NAME=\"Ubuntu\"\nVERSION=\"24.04 LTS (Noble Numbat)\"\nID=ubuntu\nID_LIKE=debian\n"
	rockyOSRelease  = "NAME=\"Rocky Linux\"\nID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n"
)

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// find returns the named check of r.
func find(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return Check{}
}

// want is what one check must say: its status and words its message and
// fix contain.
type want struct {
	check   string
	status  Status
	message string
	fix     string
}

func assertChecks(t *testing.T, r Report, wants []want) {
	t.Helper()
	for _, w := range wants {
		c := find(t, r, w.check)
		if c.Status != w.status || !strings.Contains(c.Message, w.message) || !strings.Contains(c.Fix, w.fix) {
			t.Errorf("check %s = %+v, want status %s, message with %q, fix with %q", w.check, c, w.status, w.message, w.fix)
		}
		if c.Status != OK && c.Fix == "" && w.fix != "" {
			t.Errorf("check %s is %s with no fix", w.check, c.Status)
		}
	}
}

var plenty = []Disk{{Dir: "/home/u/.paddock/lima", Free: 100 << 30}}

func healthyLinux() LinuxFacts {
	return LinuxFacts{
		Arch: "x86_64", Distro: parseOSRelease(debianOSRelease),
		QEMU:    Program{Path: "/usr/bin/qemu-system-x86_64", Output: debianQEMU},
		QEMUImg: Program{Path: "/usr/bin/qemu-img", Output: debianQEMUImg},
		SSH:     Program{Path: "/usr/bin/ssh", Output: debianSSH}, SFTPServer: "/usr/lib/openssh/sftp-server",
		AccelMode: "auto", Accel: "kvm", User: "ann", InKVMGroup: true, Disks: plenty,
	}
}

func TestLinux(t *testing.T) {
	for _, tc := range []struct {
		name   string
		facts  func(*LinuxFacts)
		ok     bool
		checks []want
	}{
		{"healthy", func(*LinuxFacts) {}, true, []want{
			{"qemu", OK, "qemu-system-x86_64 7.2.22 (/usr/bin/qemu-system-x86_64)", ""},
			{"qemu-img", OK, "qemu-img 7.2.22", ""},
			{"ssh", OK, "ssh 9.2", ""},
			{"sftp-server", OK, "/usr/lib/openssh/sftp-server", ""},
			{"kvm device", OK, "/dev/kvm opens", ""},
			{"accelerator", OK, "KVM: a test guest ran", ""},
			{"kvm group", OK, "ann is in the kvm group", ""},
			{"disk /home/u/.paddock/lima", OK, "100.0 GiB free", ""},
		}},
		{"no QEMU on Ubuntu", func(f *LinuxFacts) {
			f.Distro = parseOSRelease(ubuntuOSRelease)
			f.QEMU, f.QEMUImg, f.Accel = Program{}, Program{}, ""
		}, false, []want{
			{"qemu", Failed, "qemu-system-x86_64 is not installed", "sudo apt-get install qemu-system-x86"},
			{"qemu-img", Failed, "qemu-img is not installed", "sudo apt-get install qemu-utils"},
			{"accelerator", Failed, "cannot probe KVM without QEMU", "qemu-system-x86"},
		}},
		{"no ssh on Rocky", func(f *LinuxFacts) {
			f.Distro, f.SSH = parseOSRelease(rockyOSRelease), Program{}
		}, false, []want{{"ssh", Failed, "ssh is not installed", "sudo dnf install openssh-clients"}}},
		{"no sftp-server on Debian", func(f *LinuxFacts) { f.SFTPServer = "" }, true, []want{
			{"sftp-server", Warning, "folders shared by reverse-sshfs (mountType) get Lima's built-in SFTP server", "sudo apt-get install openssh-sftp-server"},
		}},
		{"no sftp-server on Fedora", func(f *LinuxFacts) {
			f.Distro, f.SFTPServer = parseOSRelease(rockyOSRelease), ""
		}, true, []want{{"sftp-server", Warning, "not installed", "sudo dnf install openssh-server"}}},
		{"QEMU on arm64 elsewhere", func(f *LinuxFacts) {
			f.Arch, f.Distro, f.QEMU = "aarch64", []string{"gentoo"}, Program{}
		}, false, []want{{"qemu", Failed, "qemu-system-aarch64 is not installed", "install qemu-system-aarch64 with the distribution's package manager"}}},
		{"QEMU does not run", func(f *LinuxFacts) {
			f.QEMU.Err, f.QEMU.Output = "exit status 127", "error while loading shared libraries: libfoo.so"
		}, false, []want{{"qemu", Failed, "does not run: exit status 127", "apt-get install qemu-system-x86"}}},
		{"no /dev/kvm", func(f *LinuxFacts) {
			f.KVMDevice, f.KVMMissing, f.InKVMGroup = "open /dev/kvm: no such file or directory", true, false
			f.Accel, f.AccelWarning = "tcg", "KVM does not work on this host (cannot open /dev/kvm: open /dev/kvm: no such file or directory); guests run under TCG emulation, which is much slower"
		}, true, []want{
			{"kvm device", Warning, "/dev/kvm does not exist", "sudo modprobe kvm_intel"},
			{"accelerator", Warning, "cannot open /dev/kvm", "fix the kvm device"},
			{"kvm group", Warning, "there is no /dev/kvm yet", "sudo usermod -aG kvm ann"},
		}},
		{"not in the kvm group", func(f *LinuxFacts) {
			f.KVMDevice, f.InKVMGroup = "open /dev/kvm: permission denied", false
			f.Accel, f.AccelWarning = "tcg", "KVM does not work on this host (cannot open /dev/kvm: open /dev/kvm: permission denied); guests run under TCG emulation, which is much slower"
		}, true, []want{
			{"kvm device", Warning, "permission denied", "sudo usermod -aG kvm ann, then log out and back in"},
			{"kvm group", Warning, "so /dev/kvm does not open", "sudo usermod -aG kvm ann"},
		}},
		{"kvm through an ACL, not the group", func(f *LinuxFacts) { f.InKVMGroup = false }, true, []want{
			{"kvm group", OK, "but /dev/kvm opens anyway", ""},
		}},
		{"a /dev/kvm that cannot run a guest", func(f *LinuxFacts) {
			f.Accel, f.AccelWarning = "tcg", "KVM does not work on this host (a test guest failed under KVM: exit status 1: qemu-system-x86_64: host doesn't support requested feature); guests run under TCG emulation, which is much slower"
		}, true, []want{{"accelerator", Warning, "host doesn't support requested feature", "nested virtualization"}}},
		{"TCG asked for", func(f *LinuxFacts) { f.AccelMode, f.Accel = "tcg", "tcg" }, true, []want{
			{"accelerator", Warning, "PADDOCK_QEMU_ACCEL=tcg", "unset PADDOCK_QEMU_ACCEL"},
		}},
		{"KVM asked for", func(f *LinuxFacts) { f.AccelMode = "kvm" }, true, []want{
			{"accelerator", OK, "not probed", ""},
		}},
		{"a bad accelerator mode", func(f *LinuxFacts) {
			f.AccelError, f.Accel = `unknown QEMU accelerator "hvf" in PADDOCK_QEMU_ACCEL: use auto, kvm or tcg`, ""
		}, false, []want{{"accelerator", Failed, `unknown QEMU accelerator "hvf"`, "unset PADDOCK_QEMU_ACCEL"}}},
		{"Paddock's programs, one missing", func(f *LinuxFacts) {
			f.Parts = []Part{
				{Name: "paddock-lima", Path: "/opt/paddock/bin/paddock-lima"},
				{Name: "guest agent", Missing: "the Lima guest agent is missing: looked in /opt/paddock/lib/paddock", Fix: "reinstall Paddock's package"},
			}
		}, false, []want{
			{"paddock-lima", OK, "/opt/paddock/bin/paddock-lima", ""},
			{"guest agent", Failed, "looked in /opt/paddock/lib/paddock", "reinstall Paddock's package"},
		}},
		{"a full disk", func(f *LinuxFacts) {
			f.Disks = []Disk{{Dir: "/data/lima", Free: 1 << 30}, {Dir: "/data/db", Free: 5 << 30}, {Dir: "/gone", Err: "permission denied"}}
		}, false, []want{
			{"disk /data/lima", Failed, "1.0 GiB free; the VM image and its disk need at least 2.0 GiB", "free disk space on the file system that holds /data/lima"},
			{"disk /data/db", Warning, "5.0 GiB free", "free disk space"},
			{"disk /gone", Warning, "cannot tell the free space: permission denied", ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyLinux()
			tc.facts(&f)
			r := Linux("amd64", f)
			if r.OK != tc.ok || r.OS != "linux" || r.Arch != "amd64" {
				t.Errorf("report os %s arch %s ok %v, want linux amd64 ok %v", r.OS, r.Arch, r.OK, tc.ok)
			}
			assertChecks(t, r, tc.checks)
		})
	}
}

func healthyMac() DarwinFacts {
	return DarwinFacts{
		ProductVersion: "14.5", AppleSilicon: true, Rosetta: true,
		QEMU: Program{Path: "/opt/homebrew/bin/qemu-system-aarch64", Output: brewQEMU}, QEMUProgram: "qemu-system-aarch64",
		Disks: plenty,
	}
}

func TestDarwin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		facts  func(*DarwinFacts)
		ok     bool
		checks []want
		absent string
	}{
		{"healthy", func(*DarwinFacts) {}, true, []want{
			{"macos", OK, "macOS 14.5: VZ runs guests", ""},
			{"cpu", OK, "Apple silicon", ""},
			{"rosetta", OK, "Rosetta 2 is installed", ""},
			{"qemu", OK, "qemu-system-aarch64 9.2.0", ""},
		}, ""},
		{"no Rosetta, no QEMU", func(f *DarwinFacts) { f.Rosetta, f.QEMU = false, Program{} }, true, []want{
			{"rosetta", Warning, "not installed", "softwareupdate --install-rosetta --agree-to-license"},
			{"qemu", Warning, "only the fallback", "brew install qemu"},
		}, ""},
		{"macOS 12 needs QEMU", func(f *DarwinFacts) { f.ProductVersion, f.QEMU = "12.7.4", Program{} }, false, []want{
			{"macos", Warning, "VZ needs macOS 13 or later", "softwareupdate"},
			{"qemu", Failed, "qemu-system-aarch64 is not installed", "brew install qemu"},
		}, ""},
		{"Intel before 13.5 without QEMU: nothing runs guests", func(f *DarwinFacts) {
			f.ProductVersion, f.AppleSilicon, f.Rosetta, f.QEMU = "13.2", false, false, Program{}
			f.QEMUProgram = "qemu-system-x86_64"
		}, false, []want{
			{"macos", Warning, "before 13.5", ""},
			{"qemu", Failed, "qemu-system-x86_64 is not installed", "brew install qemu"},
		}, "rosetta"},
		{"Intel before 13.5", func(f *DarwinFacts) {
			f.ProductVersion, f.AppleSilicon, f.Rosetta = "13.4.1", false, false
			f.QEMU, f.QEMUProgram = Program{Path: "/usr/local/bin/qemu-system-x86_64", Output: brewQEMU}, "qemu-system-x86_64"
		}, true, []want{
			{"macos", Warning, "before 13.5", "softwareupdate --install --all"},
			{"cpu", OK, "Intel", ""},
			{"qemu", OK, "qemu-system-x86_64 9.2.0", ""},
		}, "rosetta"},
		{"Intel on 15", func(f *DarwinFacts) { f.ProductVersion, f.AppleSilicon = "15.1", false }, true, []want{
			{"macos", OK, "macOS 15.1: VZ runs guests", ""},
		}, "rosetta"},
		{"version unknown", func(f *DarwinFacts) { f.ProductVersion = "" }, true, []want{
			{"macos", Warning, "cannot tell the macOS version", ""},
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyMac()
			tc.facts(&f)
			r := Darwin("arm64", f)
			if r.OK != tc.ok || r.OS != "darwin" {
				t.Errorf("report os %s ok %v, want darwin ok %v", r.OS, r.OK, tc.ok)
			}
			assertChecks(t, r, tc.checks)
			for _, c := range r.Checks {
				if tc.absent != "" && c.Name == tc.absent {
					t.Errorf("an Intel Mac got a %s check: %+v", tc.absent, c)
				}
			}
		})
	}
}

func healthyWindows() WindowsFacts {
	return WindowsFacts{
		Build:             "10.0.22631",
		WSL:               Program{Path: `C:\Windows\System32\wsl.exe`, Output: decodeWSLOutput(utf16LE(wslEnglish))},
		HypervisorPresent: true, Disks: plenty,
		Cygpath: Program{Path: `C:\Program Files\Git\usr\bin\cygpath.exe`, Output: "cygpath (cygwin) 3.4.10\n"},
		SSH:     Program{Path: `C:\Program Files\Git\usr\bin\ssh.exe`, Output: "OpenSSH_9.6p1, OpenSSL 3.2.1 30 Jan 2024\r\n"},
	}
}

func TestWindows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		facts  func(*WindowsFacts)
		ok     bool
		checks []want
		absent string
	}{
		{"healthy, UTF-16 output", func(*WindowsFacts) {}, true, []want{
			{"windows", OK, "Windows 10.0.22631", ""},
			{"wsl", OK, "WSL 2.0.14.0", ""},
			{"wsl kernel", OK, "WSL kernel 5.15.133.1-1", ""},
			{"wsl default version", OK, "on WSL 2", ""},
			{"virtualization", OK, "a hypervisor runs", ""},
			{"cygpath", OK, "cygpath 3.4.10", ""},
			{"ssh", OK, "ssh 9.6", ""},
		}, ""},
		{"Windows' own OpenSSH, no cygpath, WSL 1 by default", func(f *WindowsFacts) {
			f.SSH = Program{Path: `C:\Windows\System32\OpenSSH\ssh.exe`, Output: "OpenSSH_for_Windows_9.5p1, LibreSSL 3.8.2\r\n"}
			f.Cygpath = Program{}
			f.WSLDefaultVersion = 1
		}, false, []want{
			{"wsl default version", Warning, "default version is 1", "wsl --set-default-version 2"},
			{"cygpath", Failed, "not installed", "Git for Windows"},
			{"ssh", Failed, "no ControlMaster", "Git for Windows"},
		}, ""},
		{"the virtualization query timed out", func(f *WindowsFacts) {
			f.HypervisorPresent, f.VirtualizationFirmware, f.VirtualizationErr = readVirtualization("", context.DeadlineExceeded)
		}, true, []want{
			{"virtualization", Warning, "cannot tell whether virtualization is enabled: the query failed: context deadline exceeded", "Task Manager"},
		}, ""},
		{"German, UTF-8 output, hypervisor not yet started", func(f *WindowsFacts) {
			f.WSL.Output = decodeWSLOutput([]byte(wslGerman))
			f.HypervisorPresent, f.VirtualizationFirmware = false, true
		}, true, []want{
			{"wsl", OK, "WSL 2.3.26.0", ""},
			{"wsl kernel", OK, "WSL kernel 5.15.167.4-1", ""},
			{"virtualization", OK, "enabled in the firmware", ""},
		}, ""},
		{"WSL built into Windows", func(f *WindowsFacts) {
			f.WSL.Output, f.WSL.Err = decodeWSLOutput(utf16LE(wslInbox)), "exit status 1"
		}, false, []want{{"wsl", Failed, "old one built into Windows", "wsl --update"}}, "wsl kernel"},
		{"no WSL, virtualization off, old build", func(f *WindowsFacts) {
			f.Build, f.WSL = "10.0.18363", Program{}
			f.HypervisorPresent = false
		}, false, []want{
			{"windows", Failed, "needs build 19041", "Windows Update"},
			{"wsl", Failed, "not installed", "wsl --install --no-distribution"},
			{"virtualization", Failed, "off in the firmware", "VT-x or AMD-V"},
		}, "wsl kernel"},
		{"build unknown", func(f *WindowsFacts) { f.Build = "" }, true, []want{
			{"windows", Warning, "cannot tell the Windows build", ""},
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyWindows()
			tc.facts(&f)
			r := Windows("amd64", f)
			if r.OK != tc.ok || r.OS != "windows" {
				t.Errorf("report os %s ok %v, want windows ok %v", r.OS, r.OK, tc.ok)
			}
			assertChecks(t, r, tc.checks)
			for _, c := range r.Checks {
				if tc.absent != "" && c.Name == tc.absent {
					t.Errorf("got a %s check when WSL is not current: %+v", tc.absent, c)
				}
			}
		})
	}
}

// A failed query, or one that printed no booleans, says neither whether a
// hypervisor runs nor whether the firmware enables virtualization.
func TestReadVirtualization(t *testing.T) {
	for _, tc := range []struct {
		out    string
		err    error
		h, f   bool
		reason string
	}{
		{"True\r\nFalse\r\n", nil, true, false, ""},
		{"", context.DeadlineExceeded, false, false, "context deadline exceeded"},
		{"Get-CimInstance : Access denied\r\n", errors.New("exit status 1"), false, false, "exit status 1: Get-CimInstance : Access denied"},
		{"\r\n", nil, false, false, "unexpected output"},
	} {
		h, f, reason := readVirtualization(tc.out, tc.err)
		if h != tc.h || f != tc.f || !strings.Contains(reason, tc.reason) || (tc.reason == "") != (reason == "") {
			t.Errorf("readVirtualization(%q, %v) = %v, %v, %q", tc.out, tc.err, h, f, reason)
		}
	}
}

func TestParseVirtualization(t *testing.T) {
	for out, want := range map[string][2]bool{
		"True\r\nFalse\r\n": {true, false},
		"False\r\nTrue\r\n": {false, true},
		"False\r\nFalse":    {false, false},
		"":                  {false, false},
	} {
		h, f := parseVirtualization(out)
		if h != want[0] || f != want[1] {
			t.Errorf("parseVirtualization(%q) = %v, %v, want %v", out, h, f, want)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	got := strings.Join(parseOSRelease(rockyOSRelease), " ")
	if got != "rocky rhel centos fedora" {
		t.Errorf("parseOSRelease(rocky) = %q", got)
	}
	if cmd := installCommand(parseOSRelease(rockyOSRelease), "qemu-img"); cmd != "sudo dnf install qemu-img" {
		t.Errorf("install qemu-img on Rocky: %q", cmd)
	}
}
