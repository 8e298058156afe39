package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// SSH returns how to reach the running VM ns/name over ssh, as the daemon
// hands it out; a VM that does not run is a Conflict.
func (c *Client) SSH(ctx context.Context, ns, name string) (resource.VMSSH, error) {
	var out resource.VMSSH
	path := wire.ObjectPath(resource.KindVM, namespaceOf(resource.KindVM, ns), name) + "/ssh"
	return out, c.do(ctx, http.MethodGet, path, "", nil, &out)
}

// LogOptions select a VM's log and how to read it.
type LogOptions struct {
	// Stream is the log; the host agent's (resource.VMLogHostAgent) when
	// empty.
	Stream resource.VMLogStream
	// Follow keeps the log open: the reader delivers what is written to
	// it until ctx ends, it is closed, or the daemon stops.
	Follow bool
}

// Logs returns the log of the VM ns/name's machine. Close it when done.
func (c *Client) Logs(ctx context.Context, ns, name string, opts LogOptions) (io.ReadCloser, error) {
	q := url.Values{}
	if opts.Stream != "" {
		q.Set("stream", string(opts.Stream))
	}
	if opts.Follow {
		q.Set("follow", "true")
	}
	path := wire.ObjectPath(resource.KindVM, namespaceOf(resource.KindVM, ns), name) + "/logs?" + q.Encode()
	resp, err := c.send(ctx, http.MethodGet, path, "", nil, "text/plain")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, problemOf(resp)
	}
	return resp.Body, nil
}

// Shell returns the ssh command that opens a login shell in the running VM
// ns/name or, when command is given, runs it there, with the parameters
// the daemon hands out. The caller connects its standard streams and runs
// it; the command's exit code is ssh's, which is the remote command's.
func (c *Client) Shell(ctx context.Context, ns, name string, command []string) (*exec.Cmd, error) {
	return c.shell(ctx, ns, name, ShellJoin(command))
}

// AppShell is Shell for the App's VM, whose namespace is ns. A command
// holds the App busy while it runs (resource.HoldingAppBusy), so that the
// App is not suspended as idle under it.
func (c *Client) AppShell(ctx context.Context, ns string, command []string) (*exec.Cmd, error) {
	remote := ShellJoin(command)
	if remote != "" {
		remote = resource.HoldingAppBusy(remote)
	}
	return c.shell(ctx, ns, resource.AppVMName, remote)
}

func (c *Client) shell(ctx context.Context, ns, name, remote string) (*exec.Cmd, error) {
	p, err := c.SSH(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	// The key is the daemon's; a daemon running as another user (a system
	// service) must let this user read it.
	key, err := os.Open(p.IdentityFile)
	if err != nil {
		return nil, fmt.Errorf("cannot reach vm %s over ssh: the daemon's key is not readable here: %w", name, err)
	}
	key.Close()
	return exec.CommandContext(ctx, "ssh", SSHArgs(p, remote)...), nil
}

// SSHArgs returns the arguments of ssh that reach the machine p describes
// and run remote there, a command line of its shell (a terminal's login
// shell when empty). No ssh configuration of the user's is read: p says
// everything.
func SSHArgs(p resource.VMSSH, remote string) []string {
	args := []string{"-F", "/dev/null"}
	for _, o := range p.Options {
		args = append(args, "-o", o)
	}
	args = append(args, "-i", p.IdentityFile, "-p", strconv.Itoa(p.Port), "-l", p.User)
	if remote == "" {
		return append(args, "-t", p.Host)
	}
	return append(args, p.Host, "--", remote)
}

// ShellJoin quotes args into one command line of the guest's POSIX shell.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
