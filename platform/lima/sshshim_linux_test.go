package lima

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/sshshim"
)

// A PATH that already leads with the shim's directory (a daemon started
// with a host agent's environment) still gives the real ssh, not the shim.
func TestSSHShimEnvNeverTakesTheShimForTheRealSSH(t *testing.T) {
	real, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("needs ssh on PATH (openssh-client)")
	}
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), "paddock")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := &Driver{LimaHome: home, Executable: exe}
	shimDir := filepath.Join(home, "_paddock", "path")
	t.Setenv("PATH", shimDir+string(os.PathListSeparator)+filepath.Dir(real))
	if _, err := d.sshShimEnv(); err != nil { // makes the shim
		t.Fatal(err)
	}
	env, err := d.sshShimEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := sshshim.EnvRealSSH + "=" + real
	for _, kv := range env {
		if kv == want {
			return
		}
	}
	t.Fatalf("environment %q, want %s", env, want)
}

// Only a cold boot of the guest image waits for lima-init: another image
// has none. A resume of any image waits for the guest to run instead.
func TestSSHShimWaitEnvForAColdBootOfTheGuestImageAndForAResume(t *testing.T) {
	image := func(cmdline string) *limastore.Instance {
		img := limayaml.Image{File: limayaml.File{Location: "debian.qcow2"}}
		if cmdline != "" {
			img.Kernel = &limayaml.Kernel{File: limayaml.File{Location: "vmlinuz"}, Cmdline: cmdline}
		}
		return &limastore.Instance{Dir: "/lima/app", Config: &limayaml.LimaYAML{Images: []limayaml.Image{img}}}
	}
	guest := image("root=LABEL=lima-root rw console=ttyS0 quiet systemd.wants=docker.service")
	want := []string{sshshim.EnvSSHConsole + "=/lima/app/" + filenames.SerialLog}
	if got := sshShimWaitEnv(guest, false); !slices.Equal(got, want) {
		t.Errorf("cold boot of the guest image: %q, want %q", got, want)
	}
	resumed := []string{sshshim.EnvSSHResumed + "=/lima/app/" + guestRunsFile}
	for _, inst := range []*limastore.Instance{guest, image("")} {
		if got := sshShimWaitEnv(inst, true); !slices.Equal(got, resumed) {
			t.Errorf("resume: %q, want %q", got, resumed)
		}
	}
	for _, other := range []*limastore.Instance{image(""), image("root=/dev/vda1 console=ttyS0")} {
		if got := sshShimWaitEnv(other, false); got != nil {
			t.Errorf("another image: %q, want nothing", got)
		}
	}
}
