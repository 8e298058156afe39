// Package paddocktest serves the tests that exec the real paddock binary:
// it builds the binary (for the CLI's tests, and the client library's
// autostart tests, which start the real daemon), and reads the memory and
// wakeups of the processes those tests start (the daemon's, the tray's and
// QEMU's benchmarks).
package paddocktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the paddock binary into a temporary directory, stores its
// path in *bin, runs the tests and exits with their code. The directory
// and whatever cleanup names are removed first.
func Main(m *testing.M, bin *string, cleanup func()) {
	dir, err := os.MkdirTemp("", "paddock-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build paddock:", err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "paddock")
	build := exec.Command("go", "build", "-o", *bin, "paddock.dev/paddock/cmd/paddock")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build paddock:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
