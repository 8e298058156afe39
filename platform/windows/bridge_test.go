package windows

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
)

// fakeDialStdio names the socket that this test binary, started again with
// it in its environment, joins its standard input and output to, as
// `docker system dial-stdio` does inside the WSL distribution: the far
// end of the bridge, faked by a local process.
const fakeDialStdio = "PADDOCK_TEST_DIAL_STDIO"

func TestMain(m *testing.M) {
	if sock := os.Getenv(fakeDialStdio); sock != "" {
		os.Exit(dialStdio(sock))
	}
	os.Exit(m.Run())
}

// dialStdio is `docker system dial-stdio` for the socket sock: input to
// the socket, ended by a half close at its end; the socket's answer to
// output until the socket ends it.
func dialStdio(sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	go func() {
		io.Copy(c, os.Stdin)
		c.(*net.UnixConn).CloseWrite()
	}()
	io.Copy(os.Stdout, c)
	return 0
}

// bridgeTo starts this test binary as the bridge to sock.
func bridgeTo(t testing.TB, sock string) func(context.Context) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, self)
		cmd.Env = append(os.Environ(), fakeDialStdio+"="+sock)
		return cmd
	}
}

// echoEngine serves sock with an engine that answers "answer to " and
// what it read until the client's half close.
func echoEngine(t testing.TB, sock string) net.Listener {
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, _ := io.ReadAll(c)
				c.Write(append([]byte("answer to "), req...))
			}()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return l
}

// serveBridge runs Relay on a Unix socket (the named pipe's stand-in)
// with a bridge per connection to the engine at sock.
func serveBridge(t testing.TB, dir, sock string) (front string, stop func() error) {
	l, err := net.Listen("unix", filepath.Join(dir, "pipe.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Relay(ctx, l, BridgeDialer(bridgeTo(t, sock))) }()
	return l.Addr().String(), func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return context.DeadlineExceeded
		}
	}
}

// roundTrip sends req through front, half-closes, and reads the answer.
func roundTrip(front string, req []byte) ([]byte, error) {
	c, err := net.Dial("unix", front)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	c.(*net.UnixConn).CloseWrite()
	return io.ReadAll(c)
}

// The Docker pipe on Windows through a bridge process per connection, as
// `wsl.exe --exec docker system dial-stdio` makes one, with that process
// faked here: a request and its answer get through, a large one whole,
// after the client's half close; with no engine the client's connection
// is closed; the relay ends with its context and leaves no bridge running.
func TestBridgeCarriesARequestAndItsAnswer(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "docker.sock")
	engine := echoEngine(t, sock)
	front, stop := serveBridge(t, dir, sock)

	got, err := roundTrip(front, []byte("ping"))
	if err != nil || string(got) != "answer to ping" {
		t.Fatalf("through the bridge: %q, %v", got, err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, beyond any pipe buffer
	got, err = roundTrip(front, big)
	if err != nil || !bytes.Equal(got, append([]byte("answer to "), big...)) {
		t.Fatalf("1 MiB through the bridge: %d bytes back, %v", len(got), err)
	}

	engine.Close()
	got, err = roundTrip(front, []byte("ping"))
	if len(got) != 0 || err != nil {
		t.Errorf("with no engine the client reads %q, %v; want the connection closed", got, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Relay ended with %v", err)
	}
}

// The bridge's command line: wsl.exe runs Docker's dial-stdio as root in
// the distribution without a shell, against the socket the App's template
// forwards on the other hosts.
func TestBridgeArgs(t *testing.T) {
	want := []string{"wsl.exe", "--distribution", "lima-app", "--user", "root", "--exec",
		"docker", "--host", "unix:///run/docker.sock", "system", "dial-stdio"}
	if got := BridgeArgs(Distro("app"), DockerGuestSocket); !slices.Equal(got, want) {
		t.Errorf("BridgeArgs = %q, want %q", got, want)
	}
	out, err := apptemplate.Render(apptemplate.Input{Instance: "default", ShortDir: "/s", Engine: resource.EngineMoby,
		Image: apptemplate.Image{File: apptemplate.File{Location: "/i.tar.gz"}, Arch: "x86_64"}},
		apptemplate.Target{VMType: apptemplate.WSL2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "guestSocket: "+DockerGuestSocket) {
		t.Errorf("the App's template forwards no %s:\n%s", DockerGuestSocket, out)
	}
}

// The bridge's cost per connection: a request and its answer through
// Relay and a bridge process, against the same through Relay dialing the
// socket directly. The difference is the process's start and its pipes;
// on Windows wsl.exe's own start adds to it (not measured here).
func BenchmarkBridgeConnection(b *testing.B) {
	dir := b.TempDir()
	sock := filepath.Join(dir, "docker.sock")
	echoEngine(b, sock)
	for _, mode := range []string{"direct", "bridge"} {
		b.Run(mode, func(b *testing.B) {
			l, err := net.Listen("unix", filepath.Join(dir, mode+".sock"))
			if err != nil {
				b.Fatal(err)
			}
			dial := BridgeDialer(bridgeTo(b, sock))
			if mode == "direct" {
				dial = func(ctx context.Context) (net.Conn, error) {
					var d net.Dialer
					return d.DialContext(ctx, "unix", sock)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go Relay(ctx, l, dial)
			for b.Loop() {
				if got, err := roundTrip(l.Addr().String(), []byte("ping")); err != nil || string(got) != "answer to ping" {
					b.Fatalf("%q, %v", got, err)
				}
			}
		})
	}
}
