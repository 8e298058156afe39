//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-qemu/qmp"
	"github.com/lima-vm/lima/pkg/store/filenames"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/platform/qemu"
)

// startShowingProgressAndMeasureIdle starts the created VM name, showing
// what a person meets while a VM starts, and measures what the VM then
// costs the host; TestVMLifecycle runs it on its VM's first start. vm
// start shows the boot's steps, in order, and warns of emulation exactly
// when the VM runs under TCG; vm get warns while it runs (and, as
// TestVMLifecycle checks, not once it stopped). After half a minute of
// idling: QEMU's CPU time in it, its resident memory, split into the
// guest's RAM and the rest (under TCG mostly the translation cache),
// beside what the guest itself says it uses (free -m), and how much code
// QEMU translated (info jit). The figures are logged; asserted are that
// the guest's balloon reports free pages and that QEMU then holds at most
// 150 MiB more than the guest uses (used + buff/cache):
//
//	PADDOCK_E2E=1 go test -v -run TestVMLifecycle ./cmd/paddock/cli
func startShowingProgressAndMeasureIdle(t *testing.T, e *env, name string) {
	t.Helper()
	t0 := time.Now()
	_, progress, code := e.run("", "vm", "start", name, "--timeout=15m")
	boot := time.Since(t0)
	if code != 0 {
		t.Fatalf("vm start: exit %d: %s", code, progress)
	}
	rest := progress
	for _, step := range []string{"Starting: booting the VM\n", "Starting: booting the kernel\n", "Starting: SSH is up; setting up the guest\n", "Starting: running the boot scripts\n"} {
		i := strings.Index(rest, step)
		if i < 0 {
			t.Fatalf("vm start's progress lacks %q after the steps before it: %q", step, progress)
		}
		rest = rest[i+len(step):]
	}
	tcg := e.vm(name).Status.Accelerator == "tcg"
	if strings.Contains(progress, emulationWarning) != tcg {
		t.Errorf("vm start of a VM under %s: %q", e.vm(name).Status.Accelerator, progress)
	}
	if _, errOut, _ := e.run("", "vm", "get", name); strings.Contains(errOut, emulationWarning) != tcg {
		t.Errorf("vm get of a running VM under %s: %q", e.vm(name).Status.Accelerator, errOut)
	}

	pid := e.qemuPID(name)
	booted, bootCPU := paddocktest.StatusKiB(t, pid, "VmRSS"), cpuSeconds(t, pid)
	const idle = 30 * time.Second
	time.Sleep(idle)
	idleCPU := (cpuSeconds(t, pid) - bootCPU) / idle.Seconds() * 100
	ram, other := qemuMemoryKiB(t, pid, 1<<20)
	used, cache := guestMemoryMiB(t, e.mustRun("vm", "shell", name, "--", "free", "-m"))
	anon := paddocktest.StatusKiB(t, pid, "RssAnon")
	// The virtio features of the guest's balloon, one 0 or 1 per bit;
	// bit 5 is free page reporting.
	features := strings.TrimSpace(e.mustRun("vm", "shell", name, "--", "sh", "-c", "cat /sys/bus/virtio/drivers/virtio_balloon/virtio*/features"))
	load, _ := os.ReadFile("/proc/loadavg")
	rss := float64(ram+other) / 1024
	t.Logf("accelerator %s; start to running %.1f s, QEMU's CPU time then %.1f s, idle then %.1f%% of a core; QEMU RSS %d MiB after boot, %.0f MiB idle (RssAnon %d MiB; guest RAM %d MiB, the rest %d MiB); guest used %.0f MiB, buff/cache %.0f MiB; idle RSS over guest used+cache %.0f MiB; host load %s",
		e.vm(name).Status.Accelerator, boot.Seconds(), bootCPU, idleCPU, booted/1024, rss, anon/1024, ram/1024, other/1024, used, cache, rss-used-cache, strings.TrimSpace(string(load)))
	if tcg {
		t.Logf("info jit:\n%s", infoJIT(t, filepath.Join(e.path("lima_home"), name, filenames.QMPSock)))
	}
	if len(features) < 6 || features[5] != '1' {
		t.Errorf("the guest's balloon does not report free pages: its virtio features are %q", features)
	}
	if limit := used + cache + 150; rss > limit {
		t.Errorf("QEMU holds %.0f MiB idle, more than the guest's used + buff/cache + 150 MiB (%.0f MiB); under TCG most of the rest is the translation cache (%s, default %d MiB)", rss, limit, qemu.EnvTBSize, qemu.DefaultTBSize)
	}

}

// emulationWarning is what vm start and vm get say of a VM under TCG.
const emulationWarning = "runs under emulation (tcg)"

// qemuPID finds the QEMU process of a VM's instance directory.
func (e *env) qemuPID(name string) int {
	e.t.Helper()
	dir := filepath.Join(e.path("lima_home"), name)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if cmd := string(data); strings.Contains(cmd, "qemu-system") && strings.Contains(cmd, dir) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	e.t.Fatalf("no QEMU runs VM %s", name)
	return 0
}

// qemuMemoryKiB splits pid's resident memory into the guest's RAM (the one
// mapping of guestKiB) and everything else.
func qemuMemoryKiB(b testing.TB, pid, guestKiB int) (ram, rest int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	size := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		n, _ := strconv.Atoi(fields[1])
		switch fields[0] {
		case "Size:":
			size = n
		case "Rss:":
			if size == guestKiB && ram == 0 {
				ram = n
			} else {
				rest += n
			}
		}
	}
	if ram == 0 {
		b.Fatalf("QEMU %d has no mapping of %d KiB, the guest's RAM", pid, guestKiB)
	}
	return ram, rest
}

// cpuSeconds is the CPU time pid used so far, user and system.
func cpuSeconds(t testing.TB, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's name, which ends with the last ')':
	// utime and stime are the 14th and 15th of the line.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ, 100 on Linux
}

// guestMemoryMiB reads the used and buff/cache columns of `free -m`.
func guestMemoryMiB(b testing.TB, free string) (used, cache float64) {
	for _, line := range strings.Split(free, "\n") {
		if f := strings.Fields(line); len(f) >= 6 && f[0] == "Mem:" {
			used, _ = strconv.ParseFloat(f[2], 64)
			cache, _ = strconv.ParseFloat(f[5], 64)
			return used, cache
		}
	}
	b.Fatalf("no Mem: line in free's output %q", free)
	return 0, 0
}

// infoJIT asks QEMU's monitor for its translation statistics under TCG, or
// says why it could not.
func infoJIT(b testing.TB, socket string) string {
	mon, err := qmp.NewSocketMonitor("unix", socket, 5*time.Second)
	if err != nil {
		return err.Error()
	}
	if err := mon.Connect(); err != nil {
		return err.Error()
	}
	defer mon.Disconnect()
	out, err := mon.Run([]byte(`{"execute":"human-monitor-command","arguments":{"command-line":"info jit"}}`))
	if err != nil {
		return err.Error()
	}
	var res struct {
		Return string `json:"return"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return err.Error()
	}
	return res.Return
}
