package windows

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// The relay that serves the Docker pipe on Windows, between two real Unix
// sockets here: a request gets through and so does its answer, after the
// client ended its request with a half close, as HTTP/1.0 clients and
// `docker` hijacked streams do; a missing engine closes the client's
// connection; and the relay ends with its context.
func TestRelayCarriesARequestAndItsAnswer(t *testing.T) {
	dir := t.TempDir()
	engineSock := filepath.Join(dir, "docker.sock")
	engine, err := net.Listen("unix", engineSock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := engine.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, _ := io.ReadAll(c) // until the client's half close
				c.Write(append([]byte("answer to "), req...))
			}()
		}
	}()
	defer engine.Close()

	front, err := net.Listen("unix", filepath.Join(dir, "pipe.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	dial := func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", engineSock)
	}
	go func() { done <- Relay(ctx, front, dial) }()

	c, err := net.Dial("unix", front.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("ping"))
	c.(*net.UnixConn).CloseWrite()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	c.Close()
	if err != nil || string(got) != "answer to ping" {
		t.Fatalf("through the relay: %q, %v", got, err)
	}

	engine.Close()
	c, err = net.Dial("unix", front.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("with no engine the client reads %d bytes, %v; want the connection closed", n, err)
	}
	c.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Relay ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Relay did not end with its context")
	}
}
