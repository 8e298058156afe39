package lima

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"paddock.dev/paddock/core/resource"
)

// guestRun runs script as root in the running guest of inst, over the
// ssh connection its host agent keeps, and returns its error output with
// a failure.
func (d *Driver) guestRun(ctx context.Context, inst Instance, script string) error {
	return guestShell(ctx, inst, "sudo sh -s", func(stdin io.Writer, _ *bufio.Reader) error {
		_, err := io.WriteString(stdin, script)
		return err
	})
}

// guestRunAtHostTime sets the guest's clock to the host's and then runs
// script as root, as guestRun does. The host's time is taken when the
// guest is ready to set it, not when ssh starts: connecting takes seconds
// under emulation, and a time taken before would leave the guest behind.
func (d *Driver) guestRunAtHostTime(ctx context.Context, inst Instance, script string) error {
	// read takes the time's line alone (a shell reads a pipe a byte at a
	// time for it), and the shell exec'd after it reads the rest: the
	// script.
	const remote = `sudo sh -c 'echo ready; read t; date -u -s "@$t" >/dev/null && exec sh -s'`
	return guestShell(ctx, inst, remote, func(stdin io.Writer, stdout *bufio.Reader) error {
		if line, err := stdout.ReadString('\n'); err != nil || line != "ready\n" {
			return fmt.Errorf("the guest's shell said %q (%v), not that it is ready for the time", line, err)
		}
		now := time.Now()
		_, err := fmt.Fprintf(stdin, "%d.%09d\n%s", now.Unix(), now.Nanosecond(), script)
		return err
	})
}

// guestShell runs the shell command remote in the guest of inst over ssh
// and talks to it with converse, which writes its input and may read its
// output; the input is closed when converse returns.
func guestShell(ctx context.Context, inst Instance, remote string, converse func(stdin io.Writer, stdout *bufio.Reader) error) error {
	if inst.SSHConfigFile == "" || inst.Hostname == "" {
		return errors.New("the instance has no ssh configuration")
	}
	// It uses the host agent's master connection when there is one, and
	// never becomes the master itself (Lima's configuration asks ssh to,
	// and to persist): a master of this command's would outlive it, and
	// the host agent's own ssh would come to depend on it.
	cmd := exec.CommandContext(ctx, "ssh", "-F", inst.SSHConfigFile, "-o", "ControlMaster=no", inst.Hostname, remote)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	out := bufio.NewReader(stdout)
	talkErr := converse(stdin, out)
	stdin.Close()
	io.Copy(io.Discard, out)
	err = errors.Join(cmd.Wait(), talkErr)
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
	}
	return err
}

// Sessions counts the sessions of people in the running guest of the
// instance name: the logins on a terminal, as who lists them (sshd
// records a session that has a terminal: 'paddock shell', ssh through
// 'paddock ssh-config'; Lima's and the daemon's own commands, this one
// among them, have none), and one more while commands hold the App busy
// (resource.AppBusyQuery).
func (d *Driver) Sessions(ctx context.Context, name string) (int, error) {
	inst, err := d.existing(name)
	if err != nil {
		return 0, err
	}
	if !inst.Running {
		return 0, fmt.Errorf("instance %s is not running", name)
	}
	var out []byte
	err = guestShell(ctx, inst, "who; "+resource.AppBusyQuery, func(_ io.Writer, stdout *bufio.Reader) error {
		b, rerr := io.ReadAll(stdout)
		out = b
		return rerr
	})
	if err != nil {
		return 0, fmt.Errorf("ask instance %s who is logged in: %w", name, err)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n, nil
}
