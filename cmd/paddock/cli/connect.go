package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"paddock.dev/paddock/api/client"
)

// EnvNoAutostart, when set to 1, stops commands from starting the daemon.
const EnvNoAutostart = "PADDOCK_NO_AUTOSTART"

// startTimeout bounds how long a command waits for a daemon it started.
const startTimeout = 20 * time.Second

// Client returns a client of the instance's daemon, starting the daemon in
// the background when none answers.
func (c *cli) Client(ctx context.Context) (*client.Client, error) {
	p, err := c.Paths()
	if err != nil {
		return nil, err
	}
	cl := client.NewUnix(p.Socket)
	err = cl.Ready(ctx)
	if err == nil || !errors.Is(err, client.ErrUnreachable) {
		return cl, err
	}
	if os.Getenv(EnvNoAutostart) == "1" {
		return nil, fmt.Errorf("%w (%s=1, so it was not started; run 'paddock serve')", err, EnvNoAutostart)
	}
	if err := c.startDaemon(ctx, cl); err != nil {
		return nil, err
	}
	return cl, nil
}

// startDaemon starts `paddock serve` detached from this process, its output
// going to the instance's log, and waits until it is ready.
func (c *cli) startDaemon(ctx context.Context, cl *client.Client) error {
	p, _ := c.Paths()
	if err := p.MkdirAll(); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logPath := filepath.Join(p.LogDir, "paddock.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	offset, _ := logFile.Seek(0, 2)

	cmd := exec.Command(exe, "serve", "--instance", c.instance, "--log-level", c.logLevel)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for {
		if cl.Ready(ctx) == nil {
			return nil
		}
		select {
		case err := <-exited:
			// Another command may have started a daemon at the same
			// moment; this one then lost the lock and left.
			if cl.Ready(ctx) == nil {
				return nil
			}
			return fmt.Errorf("the daemon exited (%v) before it was ready: %s", err, logTail(logPath, offset))
		case <-ctx.Done():
			return fmt.Errorf("the daemon did not become ready within %s; see %s", startTimeout, logPath)
		case <-time.After(20 * time.Millisecond):
		}
	}
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
