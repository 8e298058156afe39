package lima

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/sshshim"
)

// sshShimEnv returns the host agent's environment entries that put the ssh
// shim first on its PATH, where Lima's host agent looks for ssh, and tell
// the shim the real ssh.
func (d *Driver) sshShimEnv() ([]string, error) {
	dir := filepath.Join(d.LimaHome, "_paddock", "path")
	real, err := lookPathOutside("ssh", dir)
	if err != nil {
		return nil, fmt.Errorf("ssh is not installed (on Debian and Ubuntu: apt-get install openssh-client): %w", err)
	}
	if err := linkExecutable(d.shimExecutable(), filepath.Join(dir, "ssh")); err != nil {
		return nil, err
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), sshshim.EnvRealSSH + "=" + real}, nil
}

// sshShimWaitEnv returns the host agent's environment entry that makes the
// shim wait before it dials: on a resume, for the guest to run
// (sshshim.EnvSSHResumed); on a cold boot of the guest image, whose kernel command
// line names its root file system by the label build.sh gives it, for
// lima-init's end on the console (sshshim.EnvSSHConsole). Other images have no
// lima-init.
func sshShimWaitEnv(inst *limastore.Instance, resumed bool) []string {
	switch {
	case resumed:
		return []string{sshshim.EnvSSHResumed + "=" + filepath.Join(inst.Dir, guestRunsFile)}
	case bootsGuestImage(inst):
		return []string{sshshim.EnvSSHConsole + "=" + filepath.Join(inst.Dir, filenames.SerialLog)}
	}
	return nil
}

// guestImageRoot is on the kernel command line of the guest image's
// template: platform/linux/guestimage/build.sh names its root file system
// so, and no other image boots a kernel of its own with it.
const guestImageRoot = "root=LABEL=lima-root"

// bootsGuestImage reports whether inst boots the guest image.
func bootsGuestImage(inst *limastore.Instance) bool {
	for _, img := range inst.Config.Images {
		if img.Kernel != nil && strings.Contains(img.Kernel.Cmdline, guestImageRoot) {
			return true
		}
	}
	return false
}

// lookPathOutside finds file in PATH as exec.LookPath does, but never in
// dir, the shim's own directory: a PATH that already leads with it (a
// process started with a host agent's environment) would otherwise make the
// shim its own real ssh, and it would exec itself forever.
func lookPathOutside(file, dir string) (string, error) {
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if p == "" || filepath.Clean(p) == filepath.Clean(dir) {
			continue
		}
		path := filepath.Join(p, file)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return path, nil
		}
	}
	return "", exec.ErrNotFound
}
