package hostcheck

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"slices"

	"paddock.dev/paddock/platform/qemu"
)

// Gather checks this Linux host.
func Gather(ctx context.Context, opts Options) Report {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	f := LinuxFacts{Arch: arch, Parts: opts.Parts, Disks: disks(opts.Dirs)}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		f.Distro = parseOSRelease(string(b))
	}
	f.QEMU = lookProgram(ctx, "qemu-system-"+arch, "--version")
	f.QEMUImg = lookProgram(ctx, "qemu-img", "--version")
	f.SSH = lookProgram(ctx, "ssh", "-V")
	f.SFTPServer = findSFTPServer()

	if kvm, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
		f.KVMDevice, f.KVMMissing = err.Error(), errors.Is(err, os.ErrNotExist)
	} else {
		kvm.Close()
	}
	f.AccelMode = os.Getenv(qemu.EnvAccel)
	if mode, err := qemu.ParseAccel(f.AccelMode); err != nil {
		f.AccelError = err.Error()
	} else if f.QEMU.Path != "" {
		// The probe the accelerator choice runs, fresh: its cached answer
		// would hide a fix made since this boot.
		accel, warning := qemu.DecideAccel(mode, func() error { return qemu.ProbeKVM(ctx, f.QEMU.Path) })
		f.AccelMode, f.Accel, f.AccelWarning = string(mode), string(accel), warning
	}

	if u, err := user.Current(); err == nil {
		f.User = u.Username
		f.InKVMGroup = inGroup(u, "kvm")
	}
	return Linux(runtime.GOARCH, f)
}

// sftpServerCandidates are where Linux distributions put OpenSSH's
// sftp-server, as Lima's reverse-sshfs (sshocker v0.3.8's
// DetectOpensshSftpServerBinary) looks for it after PATH.
var sftpServerCandidates = []string{
	"/usr/libexec/openssh/sftp-server", // Fedora
	"/usr/lib/sftp-server",             // Debian's link
	"/usr/lib/openssh/sftp-server",     // Debian
	"/usr/lib/ssh/sftp-server",         // Alpine, Arch
}

func findSFTPServer() string {
	if p, err := exec.LookPath("sftp-server"); err == nil {
		return p
	}
	for _, p := range sftpServerCandidates {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func inGroup(u *user.User, name string) bool {
	g, err := user.LookupGroup(name)
	if err != nil {
		return false
	}
	ids, err := u.GroupIds()
	return err == nil && slices.Contains(ids, g.Gid)
}
