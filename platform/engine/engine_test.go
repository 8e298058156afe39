package engine

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"

	"paddock.dev/paddock/core/resource"
)

// shortDir is a directory short enough for socket paths.
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "pe")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestPingDocker serves Docker's /_ping, with the headers dockerd sends, on
// the socket where the VM's forward would put it (not the daemon's
// docker.sock in front of it); the real engine answers in the end-to-end
// tests.
func TestPingDocker(t *testing.T) {
	dir := shortDir(t)
	p := Pinger{ShortDir: dir}
	if _, err := p.Ping(ctx(t), resource.EngineMoby); err == nil || !strings.Contains(err.Error(), "vm-docker.sock") {
		t.Fatalf("no socket: %v", err)
	}
	l, err := net.Listen("unix", resource.EngineForward(dir, resource.EngineMoby))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/_ping", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		w.Header().Set("Server", "Docker/20.10.24+dfsg1 (linux)")
		w.Write([]byte("OK"))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	got, err := p.Ping(ctx(t), resource.EngineMoby)
	if err != nil || !strings.Contains(got, "Docker 20.10.24+dfsg1 (API 1.41)") {
		t.Fatalf("Ping = %q, %v", got, err)
	}
}

// TestPingDockerWithoutVersionHeaders: an engine that answers /_ping but
// names no version still answers; one that answers with an error does not.
func TestPingDockerWithoutVersionHeaders(t *testing.T) {
	dir := shortDir(t)
	l, err := net.Listen("unix", resource.EngineForward(dir, resource.EngineMoby))
	if err != nil {
		t.Fatal(err)
	}
	var failing atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/_ping", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Server", "Docker/")
		if failing.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("OK"))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	p := Pinger{ShortDir: dir}
	if got, err := p.Ping(ctx(t), resource.EngineMoby); err != nil || !strings.HasPrefix(got, "Docker answers at ") {
		t.Fatalf("Ping = %q, %v", got, err)
	}
	failing.Store(true)
	if _, err := p.Ping(ctx(t), resource.EngineMoby); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("an engine answering 503: %v", err)
	}
}

// TestContainerdVersion answers containerd's version call over gRPC on a
// real socket.
func TestContainerdVersion(t *testing.T) {
	dir := shortDir(t)
	l, err := net.Listen("unix", filepath.Join(dir, "containerd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	var method string
	srv := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		method, _ = grpc.MethodFromServerStream(stream)
		var req []byte
		if err := stream.RecvMsg(&req); err != nil {
			return err
		}
		resp := protowire.AppendTag(nil, 1, protowire.BytesType)
		resp = protowire.AppendString(resp, "1.6.20~ds1")
		resp = protowire.AppendTag(resp, 2, protowire.BytesType)
		resp = protowire.AppendString(resp, "1.6.20~ds1-1")
		return stream.SendMsg(resp)
	}))
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	got, err := Pinger{ShortDir: dir}.Ping(ctx(t), resource.EngineContainerd)
	if err != nil || !strings.Contains(got, "containerd 1.6.20~ds1 answers") || method != versionMethod {
		t.Fatalf("Ping = %q, %v (method %q)", got, err, method)
	}
}

// TestAnyRunning asks Docker's list of running containers, served as
// dockerd does on the socket where the VM's forward would put it (a
// request through the daemon's docker.sock would count as a client's).
func TestAnyRunning(t *testing.T) {
	dir := shortDir(t)
	p := Pinger{ShortDir: dir}
	if _, err := p.AnyRunning(ctx(t), resource.EngineMoby); err == nil || !strings.Contains(err.Error(), "vm-docker.sock") {
		t.Fatalf("no socket: %v", err)
	}
	l, err := net.Listen("unix", resource.EngineForward(dir, resource.EngineMoby))
	if err != nil {
		t.Fatal(err)
	}
	var running atomic.Bool
	var query atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/containers/json", func(w http.ResponseWriter, r *http.Request) {
		query.Store(r.URL.RawQuery)
		if running.Load() {
			w.Write([]byte(`[{"Id":"4f1c","Names":["/web"],"State":"running"}]`))
			return
		}
		w.Write([]byte("[]\n"))
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	if got, err := p.AnyRunning(ctx(t), resource.EngineMoby); err != nil || got {
		t.Fatalf("no container: %v, %v", got, err)
	}
	running.Store(true)
	if got, err := p.AnyRunning(ctx(t), resource.EngineMoby); err != nil || !got {
		t.Fatalf("a running container: %v, %v", got, err)
	}
	if q := query.Load(); q != "limit=1" {
		t.Fatalf("asked with %q; want only running containers, at most one", q)
	}
	if _, err := p.AnyRunning(ctx(t), resource.EngineContainerd); err == nil {
		t.Fatal("containerd's containers are counted")
	}
}
