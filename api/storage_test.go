package api_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
