package lima

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lima-vm/lima/pkg/hostagent/events"
	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

// Event is a status report of a host agent, as it prints them on its
// standard output (kept in the instance's filenames.HostAgentStdoutLog).
type Event struct {
	Time time.Time `json:"time"`
	// Running: the guest booted and Lima's requirements were checked.
	Running bool `json:"running,omitempty"`
	// Degraded: running, but something failed (Errors say what); port
	// forwards or mounts may not work.
	Degraded bool `json:"degraded,omitempty"`
	// Exiting: the host agent is shutting down.
	Exiting      bool     `json:"exiting,omitempty"`
	Errors       []string `json:"errors,omitempty"`
	SSHLocalPort int      `json:"sshLocalPort,omitempty"`
}

// Watch calls fn with each event of the instance's current host agent, from
// its first, until fn returns true, ctx ends, or the event log is closed.
// Meanwhile the host agent's log lines are passed on to the driver's
// logger, those from since on. It does not notice a host agent that dies
// without a word; WaitRunning does.
func (d *Driver) Watch(ctx context.Context, name string, since time.Time, fn func(Event) bool) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	return events.Watch(ctx,
		filepath.Join(inst.Dir, filenames.HostAgentStdoutLog),
		filepath.Join(inst.Dir, filenames.HostAgentStderrLog),
		since,
		func(ev events.Event) bool {
			return fn(Event{
				Time:         ev.Time,
				Running:      ev.Status.Running,
				Degraded:     ev.Status.Degraded,
				Exiting:      ev.Status.Exiting,
				Errors:       ev.Status.Errors,
				SSHLocalPort: ev.Status.SSHLocalPort,
			})
		})
}

// StartError says why a start failed: the reason, and the last error lines
// the host agent wrote (Lima's messages and QEMU's).
type StartError struct {
	Name   string
	Reason string
	Tail   []string
}

func (e *StartError) Error() string {
	msg := fmt.Sprintf("instance %s: %s", e.Name, e.Reason)
	if len(e.Tail) > 0 {
		msg += ": " + strings.Join(e.Tail, "; ")
	}
	return msg
}

// livenessPoll is how often waitRunning checks that the host agent lives.
const livenessPoll = 500 * time.Millisecond

// waitRunning waits until the instance's host agent reports Running. It
// returns nil for a clean Running, and a *StartError when the start is
// degraded, the host agent exits or dies, the VM process dies, or the
// guest's kernel panics (its last console lines say why); ctx bounds the
// wait.
func (d *Driver) waitRunning(ctx context.Context, name string) error {
	inst, err := d.existing(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	result := make(chan error, 1)
	go func() {
		var outcome error = &StartError{Name: name, Reason: "the host agent's event log ended before it was running"}
		var first time.Time
		err := d.Watch(ctx, name, time.Now(), func(ev Event) bool {
			if first.IsZero() {
				first = ev.Time
			}
			switch {
			case ev.Exiting:
				outcome = d.startError(name, "the host agent exited before the VM was running", ev.Errors)
			case ev.Degraded:
				outcome = d.startError(name, "the VM runs degraded", ev.Errors)
			case ev.Running:
				d.Logger.Info("instance running", "instance", name, "boot", ev.Time.Sub(first).Round(time.Millisecond))
				outcome = nil
			default:
				return false
			}
			return true
		})
		if err == nil && ctx.Err() == nil {
			err = outcome
		}
		result <- err
	}()
	console := &bootwatch.Console{Path: filepath.Join(inst.Dir, filenames.SerialLog)}
	if st, err := os.Stat(filepath.Join(inst.Dir, filenames.HostAgentPID)); err == nil {
		console.NotBefore = st.ModTime()
	}
	tick := time.NewTicker(livenessPoll)
	defer tick.Stop()
	for {
		select {
		case err := <-result:
			return err
		case <-ctx.Done():
			return fmt.Errorf("instance %s: waiting to be running: %w", name, ctx.Err())
		case <-tick.C:
			p, err := d.processes(inst.Dir, limayaml.VMType(inst.VMType))
			if err != nil {
				return err
			}
			if !p.hostAgentAlive {
				return d.startError(name, "the host agent is not running", nil)
			}
			if p.driverPID != 0 && !p.driverAlive {
				return d.startError(name, "the VM process died", nil)
			}
			if lines, failed := console.Check(); failed != "" {
				return &StartError{Name: name, Reason: failed, Tail: lines}
			}
		}
	}
}

// startError makes a StartError with the host agent's error tail. A tail
// that cannot be read is left out: the reason still stands.
func (d *Driver) startError(name, reason string, errs []string) *StartError {
	tail := append([]string(nil), errs...)
	inst, err := d.Describe(name)
	if err == nil && inst.Exists {
		if t, err := ErrorTail(filepath.Join(inst.Dir, filenames.HostAgentStderrLog), tailLines); err == nil {
			tail = append(tail, t...)
		} else {
			d.Logger.Warn("cannot read the host agent's errors", "instance", name, "err", err)
		}
	}
	return &StartError{Name: name, Reason: reason, Tail: tail}
}

// tailLines is how many error lines a StartError keeps.
const tailLines = 5

// tailBytes is how much of the end of a log ErrorTail reads.
const tailBytes = 64 << 10

// failureMessages start the lines of Lima v1.2.2's host agent that explain
// a failure without being logged as errors: what QEMU printed on its
// standard error (logged at debug), and why the VM driver stopped (info).
var failureMessages = []string{"qemu[stderr]: ", "Driver stopped due to error"}

// ErrorTail returns the last n error lines of a host agent's stderr log:
// JSON log lines at level error, fatal or panic (their message and error),
// the lines that start with one of failureMessages, and lines that are not
// JSON at all (a panic, or the command's own last words).
func ErrorTail(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// Reading from the middle, the first line is likely a part: skip it.
	partial := st.Size() > tailBytes
	if partial {
		if _, err := f.Seek(-tailBytes, io.SeekEnd); err != nil {
			return nil, err
		}
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if partial {
			partial = false
			continue
		}
		if line == "" {
			continue
		}
		var entry struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil {
			lines = append(lines, line)
			continue
		}
		switch strings.ToLower(entry.Level) {
		case "error", "fatal", "panic":
		default:
			if !slices.ContainsFunc(failureMessages, func(p string) bool { return strings.HasPrefix(entry.Msg, p) }) {
				continue
			}
		}
		if entry.Error != "" {
			entry.Msg += ": " + entry.Error
		}
		lines = append(lines, entry.Msg)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return nil, err
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
