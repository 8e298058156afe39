package lima

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pidFileOwner on a real process, whose start time Linux's /proc gives (to
// the second: the boot time is in whole seconds), as macOS's sysctl and
// Windows's GetProcessTimes give theirs: a pid file written after the
// process started is its; the same pid in a file written before it
// started (a stale file whose pid was reused) is not.
func TestPIDFileOwnerOfARealProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	file := filepath.Join(t.TempDir(), "qemu.pid")
	if err := os.WriteFile(file, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !pidFileOwner(pid, file, linuxProcessStart) {
		t.Fatalf("pid %d, which wrote %s after it started, does not count as alive", pid, file)
	}
	stale := time.Now().Add(-time.Minute)
	if err := os.Chtimes(file, stale, stale); err != nil {
		t.Fatal(err)
	}
	if pidFileOwner(pid, file, linuxProcessStart) {
		t.Errorf("pid %d, started after its pid file was written, counts as the file's process", pid)
	}
}

// linuxProcessStart reads pid's start time from /proc (clock ticks after
// boot, at the usual 100 a second).
func linuxProcessStart(pid int) (time.Time, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, err
	}
	// Fields after the command name, which is in parentheses: the state is
	// field 3, the start time field 22.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	ticks, err := strconv.ParseInt(fields[22-3], 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	procStat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	var boot int64
	for _, l := range strings.Split(string(procStat), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			boot, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return time.Unix(boot, 0).Add(time.Duration(ticks) * 10 * time.Millisecond), nil
}
