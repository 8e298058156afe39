package hostcheck

import (
	"context"
	"os"
	"runtime"
	"strings"
)

// rosettaRuntime is present once Rosetta 2 is installed.
const rosettaRuntime = "/Library/Apple/usr/share/rosetta/rosetta"

// Gather checks this Mac.
func Gather(ctx context.Context, opts Options) Report {
	return Darwin(runtime.GOARCH, GatherDarwin(ctx, opts))
}

// GatherDarwin learns the facts of this Mac.
func GatherDarwin(ctx context.Context, opts Options) DarwinFacts {
	f := DarwinFacts{Parts: opts.Parts, Disks: disks(opts.Dirs)}
	if out, err := runOutput(ctx, "/usr/bin/sw_vers", "-productVersion"); err == nil {
		f.ProductVersion = strings.TrimSpace(out)
	}
	// hw.optional.arm64 is 1 on Apple silicon, also for a process that
	// Rosetta translates; Intel Macs lack it.
	if out, err := runOutput(ctx, "/usr/sbin/sysctl", "-n", "hw.optional.arm64"); err == nil {
		f.AppleSilicon = strings.TrimSpace(out) == "1"
	}
	if _, err := os.Stat(rosettaRuntime); err == nil {
		f.Rosetta = true
	}
	f.QEMUProgram = "qemu-system-x86_64"
	if f.AppleSilicon {
		f.QEMUProgram = "qemu-system-aarch64"
	}
	f.QEMU = lookProgram(ctx, f.QEMUProgram, "--version")
	f.Entitlements = readEntitlements(ctx, opts.VZProgram)
	return f
}
