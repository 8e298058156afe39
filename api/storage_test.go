package api_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/core/store/gormstore"
)

// A write while another process holds the SQLite file's lock for longer
// than the store waits answers 503 with Retry-After, naming the file and
// the other process (it answered 500 SQLITE_BUSY).
func TestWriteWhileAnotherProcessHoldsTheDatabase(t *testing.T) {
	s := serveSocket(t, gormstore.Config{})
	file := filepath.Join(filepath.Dir(s.socket), "paddock.db")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), envHoldDatabase+"="+file)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer stdin.Close()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("the other process did not take the lock: %q", line)
	}

	t0 := time.Now()
	req := `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"w"}}`
	status, body, hdr := s.sendWithHeaders(t, "POST", "/namespaces/default/configmaps", "application/json", req)
	t.Logf("answered after %v", time.Since(t0))
	if status != 503 || hdr.Get("Retry-After") == "" {
		t.Fatalf("a write while another process holds the database answered %d (Retry-After %q): %s; want 503 with Retry-After", status, hdr.Get("Retry-After"), body)
	}
	for _, want := range []string{file, "another process"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the problem does not say %q: %s", want, body)
		}
	}
	stdin.Close()
	holder.Wait()
	if status, body := s.send(t, "POST", "/namespaces/default/configmaps", "application/json", req); status != 201 {
		t.Fatalf("the write once the lock is released answered %d: %s", status, body)
	}
}

// Once a full disk has room again, /readyz turns ready by itself: the
// store probes with writes of its own (it stayed 503 until some client
// wrote). The disk is a small tmpfs, which needs root to mount.
func TestReadyAgainAfterAFullDiskIsFreed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system to fill needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	s := serveSocketAt(t, gormstore.Config{}, dir)

	// Fill what the database left of the disk.
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 8<<20)) // fails once the disk is full
	f.Close()
	big := strings.Repeat("x", 512<<10)
	status, body := s.send(t, "POST", "/namespaces/default/configmaps", "application/json",
		`{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"`+big+`"}}`)
	if status != 507 {
		t.Fatalf("a write to a full disk answered %d: %s", status, body)
	}
	// The store's probes while the disk is full fail too.
	time.Sleep(time.Second)
	if status, body := s.sendRoot(t, "/readyz"); status != 503 {
		t.Fatalf("/readyz on a full disk answered %d: %s", status, body)
	}
	os.Remove(filler)
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, body := s.sendRoot(t, "/readyz")
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still answers %d 10 s after the disk was freed, with no write asked: %s", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
