package windows

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"
)

// BridgeArgs is the command line that joins its standard input and output
// to the Unix socket guestSocket inside the WSL distribution distro:
// Docker's own `docker system dial-stdio` (what the docker CLI runs at the
// far end of an ssh:// endpoint), run as root by wsl.exe with --exec, so
// that no shell parses it. It needs no administrator rights on Windows;
// Lima v1.2.2 forwards no socket for a WSL2 instance, so this is how the
// App's engine is reached.
func BridgeArgs(distro, guestSocket string) []string {
	return []string{"wsl.exe", "--distribution", distro, "--user", "root", "--exec",
		"docker", "--host", "unix://" + guestSocket, "system", "dial-stdio"}
}

// BridgeDialer returns a dial function for Relay that starts the command
// that command makes for each connection and speaks to it through its
// standard input and output: writing to the connection writes to the
// command's input, reading reads its output, a half close ends its input.
func BridgeDialer(command func(ctx context.Context) *exec.Cmd) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		cmd := command(ctx)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &processConn{cmd: cmd, in: in, out: out}, nil
	}
}

// processConn is a connection to a process through its standard input and
// output.
type processConn struct {
	cmd       *exec.Cmd
	in        io.WriteCloser
	out       io.ReadCloser
	closeOnce sync.Once
}

func (c *processConn) Read(b []byte) (int, error)  { return c.out.Read(b) }
func (c *processConn) Write(b []byte) (int, error) { return c.in.Write(b) }

// CloseWrite ends the process's input, as a half close does a socket's.
func (c *processConn) CloseWrite() error { return c.in.Close() }

// Close ends the process's input, ends the process if it still runs, and
// reaps it.
func (c *processConn) Close() error {
	c.closeOnce.Do(func() {
		c.in.Close()
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
	})
	return nil
}

// errNoDeadline: a process's pipes take no deadlines here; Relay sets none.
var errNoDeadline = errors.New("a bridge process's connection takes no deadlines")

func (c *processConn) LocalAddr() net.Addr              { return bridgeAddr{} }
func (c *processConn) RemoteAddr() net.Addr             { return bridgeAddr{} }
func (c *processConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *processConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *processConn) SetWriteDeadline(time.Time) error { return errNoDeadline }
func (bridgeAddr) Network() string                      { return "stdio" }
func (bridgeAddr) String() string                       { return os.DevNull }

// bridgeAddr is the address of either end of a processConn.
type bridgeAddr struct{}

// DockerGuestSocket is the App's Docker socket inside its VM, where the
// App's template (platform/apptemplate) forwards it from on other hosts.
const DockerGuestSocket = "/run/docker.sock"
