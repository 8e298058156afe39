package engineproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// startCounter is an engine on a Unix socket that reads a connection's
// input to its end, then answers how many bytes came and closes: an
// answer that follows the client's half close.
func startCounter(t testing.TB, socket string) {
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				n, _ := io.Copy(io.Discard, c)
				fmt.Fprintf(c, "%d bytes\n", n)
			}()
		}
	}()
}

// serveStream runs s on a socket in dir until the test ends, and returns
// the socket and a function that ends Serve early.
func serveStream(t testing.TB, s *Stream, dir string) (string, func()) {
	socket := filepath.Join(dir, "containerd.sock")
	return socket, serveUntilEnd(t, s.Serve, socket)
}

// send writes msg through socket, ends its input, and returns the answer.
func send(socket, msg string) (string, error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		return "", err
	}
	if err := c.(*net.UnixConn).CloseWrite(); err != nil {
		return "", err
	}
	out, err := io.ReadAll(c)
	return string(out), err
}

// disconnected says whether a client that sends through socket is
// disconnected without an answer (closed before it wrote, or with its
// input unread, which resets the connection).
func disconnected(t *testing.T, socket string) bool {
	t.Helper()
	out, err := send(socket, "hello")
	if out != "" || err != nil && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Logf("answered %q, %v", out, err)
		return false
	}
	return true
}

// Bytes pass both ways, and the end of the client's input reaches the
// engine while its answer still comes back.
func TestStreamPassesBytesAndHalfCloses(t *testing.T) {
	dir := shortDir(t)
	s := &Stream{Engine: filepath.Join(dir, "vm-containerd.sock")}
	startCounter(t, s.Engine)
	socket, _ := serveStream(t, s, dir)
	msg := strings.Repeat("x", 3<<20)
	if out, err := send(socket, msg); err != nil || out != fmt.Sprintf("%d bytes\n", len(msg)) {
		t.Fatalf("through the stream: %q, %v", out, err)
	}
}

// Without an engine a client is disconnected at once; with a Wake, the
// engine is woken once for clients at the same time, and each is relayed;
// a wake that fails disconnects the client.
func TestStreamNoEngineAndWake(t *testing.T) {
	dir := shortDir(t)
	socket, _ := serveStream(t, &Stream{Engine: filepath.Join(dir, "vm-containerd.sock")}, dir)
	if !disconnected(t, socket) {
		t.Fatal("a client that found no engine was not disconnected")
	}

	dir = shortDir(t)
	var wakes atomic.Int32
	engine := filepath.Join(dir, "vm-containerd.sock")
	s := &Stream{Engine: engine, Wake: func(context.Context) error {
		wakes.Add(1)
		time.Sleep(200 * time.Millisecond) // a resume takes a while
		startCounter(t, engine)
		return nil
	}}
	socket, _ = serveStream(t, s, dir)
	fourAtOnceWakeOnce(t, &wakes, "a client", func() error {
		out, err := send(socket, "hello")
		if err == nil && out != "5 bytes\n" {
			err = fmt.Errorf("answered %q", out)
		}
		return err
	})

	dir = shortDir(t)
	socket, _ = serveStream(t, &Stream{Engine: filepath.Join(dir, "vm-containerd.sock"), Wake: func(context.Context) error {
		return errors.New("the disk is full")
	}}, dir)
	if !disconnected(t, socket) {
		t.Fatal("a client whose wake failed was not disconnected")
	}
}

// Activity counts the open connections; the end of Serve cuts a
// connection that stays open and removes the socket.
func TestStreamActivityAndEnd(t *testing.T) {
	dir := shortDir(t)
	s := &Stream{Engine: filepath.Join(dir, "vm-containerd.sock")}
	startCounter(t, s.Engine)
	socket, stop := serveStream(t, s, dir)
	deadline := time.Now().Add(5 * time.Second)
	for a := s.Activity(); a.Connections != 0; a = s.Activity() { // serveStream's probe
		if time.Now().After(deadline) {
			t.Fatalf("before any client: %+v", a)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t0 := time.Now()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline = time.Now().Add(5 * time.Second)
	for a := s.Activity(); a.Connections != 1 || a.Last.Before(t0); a = s.Activity() {
		if time.Now().After(deadline) {
			t.Fatalf("with a client connected: %+v", a)
		}
		time.Sleep(5 * time.Millisecond)
	}
	ended := time.Now()
	stop()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := bufio.NewReader(c).ReadString('\n'); !errors.Is(err, io.EOF) {
		t.Fatalf("a connection open at the end of Serve: %v, want it cut", err)
	}
	if took := time.Since(ended); took > shutdownGrace+3*time.Second {
		t.Errorf("Serve took %v to end with a client connected", took)
	}
	if _, err := net.Dial("unix", socket); err == nil {
		t.Fatal("the socket is still served after Serve ended")
	}
	if a := s.Activity(); a.Connections != 0 {
		t.Fatalf("after the end: %+v", a)
	}
}

// A Stream with a preface sends it to a client whose engine must be woken
// before the wake, and the engine's answer after it; a client whose engine
// answers gets the engine's words alone.
func TestStreamPrefaceGreetsAClientThatWaitsForAWake(t *testing.T) {
	dir := shortDir(t)
	engine := filepath.Join(dir, "vm-containerd.sock")
	preface := []byte("the engine will answer\n")
	woke := make(chan struct{})
	s := &Stream{Engine: engine, Preface: preface, Wake: func(context.Context) error {
		<-woke // the client must have the preface before the wake ends
		startCounter(t, engine)
		return nil
	}}
	socket, _ := serveStream(t, s, dir)
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || line != string(preface) {
		t.Fatalf("while the App wakes the client read %q, %v; want the preface", line, err)
	}
	close(woke)
	io.WriteString(c, "hello")
	c.(*net.UnixConn).CloseWrite()
	if rest, err := io.ReadAll(r); err != nil || string(rest) != "5 bytes\n" {
		t.Fatalf("after the wake the client read %q, %v; want the engine's answer", rest, err)
	}
	if out, err := send(socket, "hi"); err != nil || out != "2 bytes\n" {
		t.Fatalf("with the engine up: %q, %v; want its answer alone", out, err)
	}
}
