package lima

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/usrlocalsharelima"
)

// packagedGuestAgentDirs are where Paddock's packages put Lima's guest
// agent, relative to the directory of the paddock binary: a program's
// architecture-dependent files belong under lib or libexec, not share.
var packagedGuestAgentDirs = []string{"../lib/paddock", "../libexec/paddock"}

// findGuestAgent returns the guest agent that the instance's guest needs
// ("" for a plain instance, which runs none), as FindGuestAgent finds it.
func (d *Driver) findGuestAgent(inst *limastore.Instance) (string, error) {
	if *inst.Config.Plain {
		return "", nil
	}
	return FindGuestAgent(d.Executable, *inst.Config.OS, *inst.Config.Arch)
}

// FindGuestAgent returns Lima's guest agent for guests of guestOS and arch,
// for the paddock binary exe: where Lima itself looks (beside the running
// binary, in ../share/lima), or where Paddock's packages install it
// (../lib/paddock, ../libexec/paddock beside exe). A missing one fails
// here with where it belongs, before Lima's own error would suggest a
// package of Lima's.
func FindGuestAgent(exe string, guestOS limayaml.OS, arch limayaml.Arch) (string, error) {
	if path, err := usrlocalsharelima.GuestAgentBinary(guestOS, arch); err == nil {
		return path, nil
	}
	name := "lima-guestagent." + guestOS + "-" + arch
	var tried []string
	for _, dir := range guestAgentDirs(exe) {
		for _, file := range []string{name, name + ".gz"} {
			path := filepath.Join(dir, file)
			if _, err := os.Stat(path); err == nil {
				return path, nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return "", err
			}
			tried = append(tried, path)
		}
	}
	return "", fmt.Errorf("the Lima guest agent %s is missing: Paddock's packages install it in "+
		"<prefix>/lib/paddock beside <prefix>/bin/paddock; for a paddock built from source, "+
		"%s (looked in Lima's places beside the binary and in %v)", name, buildGuestAgentFix, tried)
}

// buildGuestAgentFix says how to put a guest agent beside a paddock built
// from source.
const buildGuestAgentFix = "build it beside the binary with 'go run ./platform/lima/build-guestagent -o DIR'"

// guestAgentDirs are the packaged places of the guest agent for the
// paddock binary exe, and for the file a symlink exe points to.
func guestAgentDirs(exe string) []string {
	var dirs []string
	for _, e := range exeAndTarget(exe) {
		for _, rel := range packagedGuestAgentDirs {
			dirs = append(dirs, filepath.Join(filepath.Dir(e), rel))
		}
	}
	return dirs
}

// exeAndTarget is exe and, when exe is a symlink, the file it points to.
func exeAndTarget(exe string) []string {
	exes := []string{exe}
	if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
		exes = append(exes, real)
	}
	return exes
}
