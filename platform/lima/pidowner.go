package lima

import (
	"os"
	"time"
)

// pidFileSlack is how far a process's start time may lie after its pid
// file's modification time and still be the process that wrote it: a file
// system may round the time down (HFS+ to the second, FAT to two).
const pidFileSlack = 2 * time.Second

// wrotePIDFile reports whether a process that started at started can be
// the one whose pid a file modified at written holds. A pid file is
// written after its process starts (the host agent writes its own, QEMU
// writes its -pidfile, the VZ driver writes the host agent's pid once the
// VM runs), so a process that started after the file was written is
// another program that was given a reused pid. Where there is no /proc to
// read a process's command line from (macOS, Windows), this is how a live
// pid is told to be the instance's.
func wrotePIDFile(started, written time.Time) bool {
	if started.IsZero() || written.IsZero() {
		// Nothing to compare: the pid's process counts as the file's.
		return true
	}
	return !started.After(written.Add(pidFileSlack))
}

// pidFileOwner reports whether pid runs and is the process that wrote
// pidFile, given startTime, which returns the start time of a live pid and
// an error when it does not run. A pid file that is gone since it was read
// belongs to no process.
func pidFileOwner(pid int, pidFile string, startTime func(pid int) (time.Time, error)) bool {
	started, err := startTime(pid)
	if err != nil {
		return false
	}
	fi, err := os.Stat(pidFile)
	if err != nil {
		return false
	}
	return wrotePIDFile(started, fi.ModTime())
}
