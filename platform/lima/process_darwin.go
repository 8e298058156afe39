package lima

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// sZomb is a process's state (p_stat) once it has exited and awaits its
// parent's wait (SZOMB in <sys/proc.h>).
const sZomb = 5

// processAlive reports whether pid runs, is not a zombie, and is the
// process that wrote pidFile: it started before the file was written
// (wrotePIDFile), so that a pid reused by another program does not count.
// macOS shows another process's command line only to its own user, so its
// start time is compared instead; dir is unused.
func processAlive(pid int, _ string, pidFile string) bool {
	return pidFileOwner(pid, pidFile, processStart)
}

// processStart returns pid's start time from sysctl kern.proc.pid, or an
// error when it does not run or is a zombie.
func processStart(pid int) (time.Time, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return time.Time{}, err
	}
	if int(k.Proc.P_pid) != pid {
		return time.Time{}, errors.New("no such process")
	}
	if k.Proc.P_stat == sZomb {
		return time.Time{}, errors.New("zombie")
	}
	return time.Unix(k.Proc.P_starttime.Unix()), nil
}
