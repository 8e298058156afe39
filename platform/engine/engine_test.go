package engine

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
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
	l, err := net.Listen("unix", resource.EngineForward(dir, resource.EngineContainerd))
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
}

// TestContainerdAnyRunning answers containerd's calls as containerd does,
// over gRPC on the socket where the VM's forward would put it: the
// namespaces, and each one's tasks for the namespace its header names.
// The real containerd answers in the end-to-end test.
func TestContainerdAnyRunning(t *testing.T) {
	dir := shortDir(t)
	p := Pinger{ShortDir: dir}
	if _, err := p.AnyRunning(ctx(t), resource.EngineContainerd); err == nil || !strings.Contains(err.Error(), "vm-containerd.sock") {
		t.Fatalf("no socket: %v", err)
	}
	l, err := net.Listen("unix", resource.EngineForward(dir, resource.EngineContainerd))
	if err != nil {
		t.Fatal(err)
	}
	message := func(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
	str := func(num protowire.Number, v string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	msg := func(num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	}
	task := func(id string, status uint64) []byte {
		t := message(str(1, id), str(2, id), protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 4242))
		if status != 0 { // proto3 leaves the default out
			t = append(protowire.AppendTag(t, 4, protowire.VarintType), protowire.AppendVarint(nil, status)...)
		}
		return msg(1, t)
	}
	// tasks by namespace, as each answer's bytes.
	var tasks atomic.Value
	tasks.Store(map[string][]byte{"default": nil, "k8s.io": nil})
	srv := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		method, _ := grpc.MethodFromServerStream(stream)
		var req []byte
		if err := stream.RecvMsg(&req); err != nil {
			return err
		}
		byNS := tasks.Load().(map[string][]byte)
		switch method {
		case namespacesMethod:
			var resp []byte
			for _, ns := range []string{"default", "k8s.io"} {
				resp = append(resp, msg(1, message(str(1, ns), msg(2, message(str(1, "a"), str(2, "b")))))...)
			}
			return stream.SendMsg(resp)
		case tasksMethod:
			md, _ := metadata.FromIncomingContext(stream.Context())
			ns := md.Get(namespaceHeader)
			if len(ns) != 1 {
				return status.Error(codes.FailedPrecondition, "namespace is required")
			}
			return stream.SendMsg(byNS[ns[0]])
		}
		return status.Error(codes.Unimplemented, method)
	}))
	go srv.Serve(l)
	t.Cleanup(srv.Stop)

	for _, c := range []struct {
		name string
		byNS map[string][]byte
		want bool
	}{
		{"no task", map[string][]byte{}, false},
		{"tasks created and stopped", map[string][]byte{"default": message(task("made", 1), task("ended", 3), task("unknown", 0))}, false},
		{"a task running in the second namespace", map[string][]byte{"default": task("ended", 3), "k8s.io": task("web", 2)}, true},
		{"a task paused", map[string][]byte{"default": task("held", 4)}, true},
	} {
		tasks.Store(c.byNS)
		if got, err := p.AnyRunning(ctx(t), resource.EngineContainerd); err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	tasks.Store(map[string][]byte{"default": {0xff}})
	if _, err := p.AnyRunning(ctx(t), resource.EngineContainerd); err == nil || !strings.Contains(err.Error(), "tasks of namespace default") {
		t.Errorf("an answer that is no protobuf: %v", err)
	}
}
