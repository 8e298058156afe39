package qemu

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The probe firmware really makes QEMU exit with the expected code: run it
// under TCG, which works everywhere QEMU is installed.
func TestProbeFirmwareRunsUnderTCG(t *testing.T) {
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("qemu-system-x86_64 is not installed")
	}
	fw := filepath.Join(t.TempDir(), "probe.bin")
	if err := os.WriteFile(fw, probeFirmware(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(context.Background(), qemu,
		"-machine", "q35,accel=tcg", "-cpu", "max", "-m", "16",
		"-nodefaults", "-display", "none", "-no-reboot", "-serial", "none", "-monitor", "none",
		"-bios", fw, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04")
	err = cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != probeExitCode {
		t.Fatalf("QEMU ran the probe firmware with %v, want exit code %d", err, probeExitCode)
	}
}

// A cached answer is reused for the same QEMU binary; another binary is
// probed anew.
func TestProbeKVMCachedReusesTheAnswer(t *testing.T) {
	if f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0); err != nil {
		t.Skipf("the probe stops at /dev/kvm here, before running QEMU: %v", err)
	} else {
		f.Close()
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	qemu := filepath.Join(dir, "qemu-system-x86_64")
	fake := "#!/bin/sh\necho run >>" + runs + "\nexit 1\n"
	if err := os.WriteFile(qemu, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "kvm-probe.json")
	first := ProbeKVMCached(context.Background(), qemu, cache)
	if first == nil {
		t.Fatal("a QEMU that exits 1 passed the KVM probe")
	}
	again := ProbeKVMCached(context.Background(), qemu, cache)
	if again == nil || again.Error() != first.Error() {
		t.Fatalf("second probe = %v, want the cached %v", again, first)
	}
	if n := countLines(t, runs); n != 1 {
		t.Fatalf("QEMU ran %d times for two probes of one binary, want 1", n)
	}
	if err := os.WriteFile(qemu, []byte(fake+"# upgraded\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ProbeKVMCached(context.Background(), qemu, cache); err == nil {
		t.Fatal("the upgraded fake QEMU passed the probe")
	}
	if n := countLines(t, runs); n != 2 {
		t.Fatalf("QEMU ran %d times after an upgrade, want 2", n)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
