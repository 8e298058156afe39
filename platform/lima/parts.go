package lima

import (
	"path/filepath"
	"runtime"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/hostcheck"
)

// Parts finds, for the paddock binary exe, the programs beside it that
// every VM needs: paddock-lima, and the guest agent of Linux guests of
// this host's architecture (the App's). `paddock doctor` and the host
// report show them, so that a missing one is named before a VM fails.
func Parts(exe string) []hostcheck.Part {
	helper := hostcheck.Part{Name: HelperName}
	var err error
	if helper.Path, err = FindHelper(exe); err != nil {
		helper.Missing = err.Error()
		helper.Fix = "reinstall Paddock's package; for a paddock built from source, build it beside the binary with 'go build -o " +
			filepath.Dir(exe) + " ./cmd/paddock/paddock-lima'"
	}
	agent := hostcheck.Part{Name: "guest agent"}
	if agent.Path, err = FindGuestAgent(exe, limayaml.LINUX, limayaml.NewArch(runtime.GOARCH)); err != nil {
		agent.Missing = err.Error()
		agent.Fix = "reinstall Paddock's package; for a paddock built from source, " + buildGuestAgentFix
	}
	return []hostcheck.Part{helper, agent}
}

// CheckOptions points the host check at instance p's directories that
// grow (its data and its VMs' disks) and at the programs that the paddock
// binary exe runs VMs with: what `paddock doctor` and the daemon's host
// report check alike. On macOS, paddock-lima runs Lima's host agent and so
// VZ, and doctor checks its signature.
func CheckOptions(p instance.Paths, exe string) hostcheck.Options {
	opts := hostcheck.Options{Dirs: []string{p.Dir, p.LimaHome}, Parts: Parts(exe)}
	for _, part := range opts.Parts {
		if part.Name == HelperName {
			opts.VZProgram = part.Path
		}
	}
	return opts
}
