package lima

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/platform/lima/sshshim"
	"paddock.dev/paddock/platform/qemu"
)

// fakePrograms puts stand-ins for QEMU's programs and ssh on an otherwise
// empty PATH: the driver only looks them up here.
func fakePrograms(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, prog := range []string{"qemu-system-x86_64", "qemu-img", "ssh"} {
		if err := os.WriteFile(filepath.Join(dir, prog), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

// envMap turns KEY=VALUE entries into a map, later entries winning, as
// exec.Cmd reads them.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// A host agent gets its Lima home, the QEMU wrapper (told the accelerator
// and where to keep QEMU's answers) and the ssh shim in its own environment, under TCG and under KVM alike;
// this process's environment stays as it was.
func TestHostAgentEnv(t *testing.T) {
	for _, accel := range []qemu.Accel{qemu.AccelTCG, qemu.AccelKVM} {
		t.Run(string(accel), func(t *testing.T) {
			bin := fakePrograms(t)
			d := &Driver{LimaHome: t.TempDir(), Executable: "/opt/paddock/bin/paddock"}
			env, err := d.hostAgentEnv(string(accel), "x86_64")
			if err != nil {
				t.Fatal(err)
			}
			m := envMap(env)
			if m[EnvLimaHome] != d.LimaHome {
				t.Errorf("LIMA_HOME=%q, want %q", m[EnvLimaHome], d.LimaHome)
			}
			wrapper := m["QEMU_SYSTEM_X86_64"]
			if target, err := os.Readlink(wrapper); err != nil || target != d.Executable || filepath.Base(wrapper) != "qemu-system-x86_64" {
				t.Errorf("QEMU_SYSTEM_X86_64=%q links to %q (%v), want a qemu-system-x86_64 link to %s", wrapper, target, err, d.Executable)
			}
			if m[qemu.EnvReal] != filepath.Join(bin, "qemu-system-x86_64") {
				t.Errorf("%s=%q, want the QEMU on PATH", qemu.EnvReal, m[qemu.EnvReal])
			}
			if m[qemu.EnvWrapperAccel] != string(accel) {
				t.Errorf("%s=%q, want %s", qemu.EnvWrapperAccel, m[qemu.EnvWrapperAccel], accel)
			}
			if want := filepath.Join(d.LimaHome, "_paddock", "qemu-answers"); m[qemu.EnvAnswers] != want {
				t.Errorf("%s=%q, want %s", qemu.EnvAnswers, m[qemu.EnvAnswers], want)
			}
			path := filepath.SplitList(m["PATH"])
			if len(path) != 2 || path[1] != bin {
				t.Fatalf("PATH=%q, want the shim's directory before %s", m["PATH"], bin)
			}
			if target, err := os.Readlink(filepath.Join(path[0], "ssh")); err != nil || target != d.Executable {
				t.Errorf("the ssh shim links to %q (%v), want %s", target, err, d.Executable)
			}
			if m[sshshim.EnvRealSSH] != filepath.Join(bin, "ssh") {
				t.Errorf("%s=%q, want the ssh on PATH", sshshim.EnvRealSSH, m[sshshim.EnvRealSSH])
			}
			if os.Getenv("PATH") != bin || os.Getenv("QEMU_SYSTEM_X86_64") != "" || os.Getenv(sshshim.EnvRealSSH) != "" {
				t.Error("preparing a host agent's environment changed this process's")
			}
		})
	}
}

// A guest of another architecture runs as Lima starts it: no wrapper.
func TestHostAgentEnvForeignArch(t *testing.T) {
	fakePrograms(t)
	foreign := limayaml.AARCH64
	if limayaml.IsNativeArch(foreign) {
		foreign = limayaml.X8664
	}
	d := &Driver{LimaHome: t.TempDir(), Executable: "/opt/paddock/bin/paddock"}
	env, err := d.hostAgentEnv(string(qemu.AccelTCG), foreign)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "QEMU_SYSTEM_") || strings.HasPrefix(kv, qemu.EnvReal+"=")
	}) {
		t.Errorf("a foreign-architecture guest's host agent gets the QEMU wrapper: %q", env)
	}
}

// Where paddock-shim is installed beside paddock, the QEMU wrapper's and
// the ssh shim's links point to it; where it is not (a build of paddock
// alone), to paddock, and a link made before follows.
func TestHelperLinksTakePaddockShimWhereInstalled(t *testing.T) {
	fakePrograms(t)
	dir := t.TempDir()
	exe, shim := filepath.Join(dir, "paddock"), filepath.Join(dir, ShimName)
	for _, f := range []string{exe, shim} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := &Driver{LimaHome: t.TempDir(), Executable: exe}
	links := func() []string {
		t.Helper()
		env, err := d.hostAgentEnv(string(qemu.AccelTCG), "x86_64")
		if err != nil {
			t.Fatal(err)
		}
		m := envMap(env)
		var targets []string
		for _, link := range []string{m["QEMU_SYSTEM_X86_64"], filepath.Join(filepath.SplitList(m["PATH"])[0], "ssh")} {
			target, err := os.Readlink(link)
			if err != nil {
				t.Fatal(err)
			}
			targets = append(targets, target)
		}
		return targets
	}
	if got := links(); got[0] != shim || got[1] != shim {
		t.Fatalf("with paddock-shim installed the links point to %q, want %s", got, shim)
	}
	if err := os.Remove(shim); err != nil {
		t.Fatal(err)
	}
	if got := links(); got[0] != exe || got[1] != exe {
		t.Fatalf("without paddock-shim the links point to %q, want %s", got, exe)
	}
}
