package lima

import (
	"bytes"
	"os"
	"strconv"
)

// processAlive reports whether pid runs, is not a zombie, and has dir in its
// command line (the host agent's pid and socket files, QEMU's disks and pid
// file are all in the instance directory), so that a pid reused by another
// process does not count. pidFile is unused.
func processAlive(pid int, dir, _ string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	return err == nil && bytes.Contains(cmdline, []byte(dir))
}
