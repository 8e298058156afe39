package api_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/core/store/gormstore"
)

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
