package lima

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
)

func guestInstance(plain bool) *limastore.Instance {
	osName, arch := limayaml.LINUX, limayaml.X8664
	return &limastore.Instance{Config: &limayaml.LimaYAML{OS: &osName, Arch: &arch, Plain: &plain}}
}

// The packages put the guest agent in <prefix>/lib/paddock beside
// <prefix>/bin/paddock; the driver finds it there, also through a symlink
// to the binary, and says where it looked when it is nowhere.
func TestFindPackagedGuestAgent(t *testing.T) {
	prefix := t.TempDir()
	exe := filepath.Join(prefix, "bin", "paddock")
	agent := filepath.Join(prefix, "lib", "paddock", GuestAgentName(limayaml.X8664))
	for _, f := range []string{exe, agent} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "paddock")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{exe, link} {
		got, err := (&Driver{Executable: e}).findGuestAgent(guestInstance(false))
		if err != nil || got != agent {
			t.Errorf("executable %s: found %q, %v; want %s", e, got, err, agent)
		}
	}
	if got, err := (&Driver{Executable: exe}).findGuestAgent(guestInstance(true)); err != nil || got != "" {
		t.Errorf("a plain instance: found %q, %v; want none", got, err)
	}

	os.Remove(agent)
	_, err := (&Driver{Executable: exe}).findGuestAgent(guestInstance(false))
	if err == nil || !strings.Contains(err.Error(), "is missing") || !strings.Contains(err.Error(), filepath.Join(prefix, "lib", "paddock")) {
		t.Errorf("no guest agent anywhere: %v; want an error that names where it was looked for", err)
	}
}
