package qemu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"paddock.dev/paddock/core/atomicfile"
)

// probeExitCode is what QEMU exits with when the probe firmware ran: the
// isa-debug-exit device turns the value v written to its port into the exit
// code v<<1|1, and the firmware writes 0x31.
const probeExitCode = 0x31<<1 | 1

// probeTimeout bounds the probe; a guest that hangs under KVM is a KVM that
// does not work.
const probeTimeout = 10 * time.Second

// probeFirmware is a 64 KiB firmware image whose reset vector writes 0x31 to
// I/O port 0xf4 and halts: mov al,0x31; out 0xf4,al; hlt; jmp $-1. The
// rest is hlt.
func probeFirmware() []byte {
	fw := bytes.Repeat([]byte{0xf4}, 64<<10)
	copy(fw[0xfff0:], []byte{0xb0, 0x31, 0xe6, 0xf4, 0xf4, 0xeb, 0xfd})
	return fw
}

// ProbeKVM reports whether KVM really runs a guest here: /dev/kvm must open
// for reading and writing, and QEMU (the program at qemu) must run a tiny
// firmware with the machine and CPU Lima asks for on KVM (q35, -cpu host) and
// exit the way that firmware makes it exit. A /dev/kvm that exists but
// cannot run a guest (such as a nested hypervisor that rejects the host CPU
// model) fails the probe. The probe checks real mode only, not that a
// particular guest kernel boots.
func ProbeKVM(ctx context.Context, qemu string) error {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cannot open /dev/kvm: %w", err)
	}
	f.Close()

	dir, err := os.MkdirTemp("", "paddock-kvm-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fw := filepath.Join(dir, "probe.bin")
	if err := os.WriteFile(fw, probeFirmware(), 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, qemu,
		"-machine", "q35,accel=kvm", "-cpu", "host", "-m", "16",
		"-nodefaults", "-display", "none", "-no-reboot", "-serial", "none", "-monitor", "none",
		"-bios", fw, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == probeExitCode:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("a test guest did not finish under KVM within %v", probeTimeout)
	case err == nil:
		return errors.New("a test guest under KVM exited without running its firmware")
	}
	msg := strings.TrimSpace(stderr.String())
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("a test guest failed under KVM: %v: %s", err, msg)
}

// probeRecord is a cached probe result, valid for one QEMU binary during
// one boot of the host.
type probeRecord struct {
	Key   string `json:"key"`
	Error string `json:"error,omitempty"`
}

// ProbeKVMCached is ProbeKVM with its answer cached in cacheFile. The answer
// is reused while the QEMU binary (path, size, modification time) and the
// host's boot are the same; a reboot or a QEMU upgrade probes again.
func ProbeKVMCached(ctx context.Context, qemu, cacheFile string) error {
	key, err := probeKey(qemu)
	if err != nil {
		return err
	}
	if b, err := os.ReadFile(cacheFile); err == nil {
		var rec probeRecord
		if json.Unmarshal(b, &rec) == nil && rec.Key == key {
			if rec.Error != "" {
				return errors.New(rec.Error)
			}
			return nil
		}
	}
	probeErr := ProbeKVM(ctx, qemu)
	if ctx.Err() != nil {
		return ctx.Err() // an interrupted probe says nothing about KVM
	}
	rec := probeRecord{Key: key}
	if probeErr != nil {
		rec.Error = probeErr.Error()
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cacheFile), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(cacheFile, b, 0o600); err != nil {
		return fmt.Errorf("cache the KVM probe: %w", err)
	}
	return probeErr
}

func probeKey(qemu string) (string, error) {
	st, err := os.Stat(qemu)
	if err != nil {
		return "", err
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %d %d %s", qemu, st.Size(), st.ModTime().UnixNano(), strings.TrimSpace(string(boot))), nil
}
