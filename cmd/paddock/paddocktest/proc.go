package paddocktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The figures below come from Linux's /proc: the benchmarks that report a
// process's memory and wakeups run on Linux only.

// StatusKiB is a figure in KiB of process pid's /proc status, such as
// VmRSS (resident now) or VmHWM (the most resident so far).
func StatusKiB(tb testing.TB, pid int, field string) int64 {
	tb.Helper()
	v, ok := statusFields(fmt.Sprintf("/proc/%d/status", pid))[field]
	if !ok {
		tb.Fatalf("process %d: no %s in its /proc status", pid, field)
	}
	kib, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		tb.Fatalf("process %d: %s %q: %v", pid, field, v, err)
	}
	return kib
}

// ContextSwitches sums the voluntary and involuntary context switches of
// every thread of process pid. A thread that ended meanwhile takes its
// count with it, so a difference is a lower bound.
func ContextSwitches(tb testing.TB, pid int) int64 {
	tb.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		tb.Fatalf("the threads of process %d: %v", pid, err)
	}
	var n int64
	for _, status := range tasks {
		fields := statusFields(status)
		for _, k := range []string{"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"} {
			c, _ := strconv.ParseInt(fields[k], 10, 64)
			n += c
		}
	}
	return n
}

// statusFields reads a /proc status file's "Key:\tvalue" lines; a thread
// that ended meanwhile has none.
func statusFields(path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}
