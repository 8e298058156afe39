package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultStartTimeout bounds how long Connect waits for a daemon it
// started when Autostart names no timeout.
const DefaultStartTimeout = 20 * time.Second

// Autostart says how to start the daemon when none answers.
type Autostart struct {
	// Command runs the daemon in the foreground: a program and its
	// arguments, such as paddock serve --instance NAME. It is started
	// detached, so the daemon outlives the process that started it.
	Command []string
	// LogPath receives the daemon's output; it is appended to.
	LogPath string
	// PIDFile, when set, is where a daemon that holds the instance records
	// its pid. A started daemon that exits because another one holds the
	// instance (two callers started one at once) is no failure when a live
	// pid other than its own appears there: Connect waits for that daemon
	// instead.
	PIDFile string
	// Timeout bounds the wait for the daemon to become ready;
	// DefaultStartTimeout when zero.
	Timeout time.Duration
}

// Connect returns nil once the daemon answers. When none is reachable and
// start is not nil, it starts one as start says and waits until it is
// ready; a daemon that exits first fails Connect with the end of its log.
// Two processes that start a daemon at once are both served by the one
// that wins the instance's lock.
func (c *Client) Connect(ctx context.Context, start *Autostart) error {
	err := c.Ready(ctx)
	if err == nil || start == nil || !errors.Is(err, ErrUnreachable) {
		return err
	}
	return c.start(ctx, start)
}

func (c *Client) start(ctx context.Context, a *Autostart) error {
	if len(a.Command) == 0 {
		return errors.New("autostart: no command to start the daemon with")
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	logFile, err := os.OpenFile(a.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the daemon's log: %w", err)
	}
	defer logFile.Close()
	offset, _ := logFile.Seek(0, io.SeekEnd)

	cmd := exec.Command(a.Command[0], a.Command[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if c.Ready(ctx) == nil {
			return nil
		}
		select {
		case err := <-exited:
			if c.Ready(ctx) == nil || c.awaitOther(ctx, a.PIDFile, cmd.Process.Pid) {
				return nil
			}
			return fmt.Errorf("the daemon exited (%v) before it was ready: %s", err, logTail(a.LogPath, offset))
		case <-ctx.Done():
			return fmt.Errorf("the daemon did not become ready within %s; see %s", timeout, a.LogPath)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// otherDaemonGrace bounds how long after our daemon left another one may
// take to record its pid: it does so right after taking the instance's
// lock, which is what made ours leave.
const otherDaemonGrace = 2 * time.Second

// awaitOther waits, while a live daemon other than ours (pid) is recorded
// in pidFile, until the daemon answers; it reports whether it did.
func (c *Client) awaitOther(ctx context.Context, pidFile string, ours int) bool {
	if pidFile == "" {
		return false
	}
	graceEnd := time.Now().Add(otherDaemonGrace)
	for {
		other := recordedPID(pidFile)
		switch {
		case other == 0 && time.Now().After(graceEnd), other == ours, other != 0 && !alive(other):
			return false
		case c.Ready(ctx) == nil:
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// recordedPID returns the pid in pidFile, or 0.
func recordedPID(pidFile string) int {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}

// logTail returns what was written to the log after offset, briefly.
func logTail(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) < offset {
		return "see " + path
	}
	tail := strings.TrimSpace(string(data[offset:]))
	if len(tail) > 2000 {
		tail = "…" + tail[len(tail)-2000:]
	}
	return tail
}

// RecordedDaemon returns the pid that pidFile records when that process
// is alive, or 0: the daemon that holds the instance, however it was
// started.
func RecordedDaemon(pidFile string) int {
	if pid := recordedPID(pidFile); pid != 0 && alive(pid) {
		return pid
	}
	return 0
}
