// Package paddocktest holds what the tests of several packages need to meet
// a real daemon. For the tests that exec the real paddock binary (the CLI's,
// the client library's autostart tests, which start the real daemon, and
// the driver's, which need paddock-lima alone) it builds paddock and
// paddock-lima, the Lima helper the daemon runs; for the benchmarks of the
// processes those tests start (the daemon's, the tray's, QEMU's) it reads
// their memory and wakeups. For the tests of the desktop program (the tray,
// the settings window, their follower of the daemon) it serves the daemon's
// API inside the test, with the test in the controllers' place (Daemon).
package paddocktest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the paddock binary, and paddock-lima and paddock-shim beside
// it (see Build), into a temporary directory, stores the paddock binary's
// path in *bin, runs the tests and exits with their code. The directory
// and whatever cleanup names are removed first.
func Main(m *testing.M, bin *string, cleanup func()) {
	dir, err := os.MkdirTemp("", "paddock-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build paddock:", err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "paddock")
	if err := Build(dir, Paddock, Helper, Shim); err != nil {
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

// The main packages of the paddock binary, of paddock-lima and of
// paddock-shim.
const (
	Paddock = "paddock.dev/paddock/cmd/paddock"
	Helper  = "paddock.dev/paddock/cmd/paddock/paddock-lima"
	Shim    = "paddock.dev/paddock/cmd/paddock/paddock-shim"
)

// Build builds the main packages pkgs into dir, each under its own name;
// the daemon finds paddock-lima and paddock-shim beside the paddock binary.
func Build(dir string, pkgs ...string) error {
	build := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	build.Stderr = os.Stderr
	return build.Run()
}

// Installed copies the binary at bin into a temporary directory as a
// package manager installs a file (written with write(2)) and returns the
// copy's path, for a benchmark that reports how much of the binary a
// process maps. The linker writes its output through a shared mapping,
// which leaves that file's pages in the page cache in a shape that a
// process starting from it maps more of (about 4 MiB for the daemon) than
// of the same bytes written or read from disk the usual way.
func Installed(tb testing.TB, bin string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), filepath.Base(bin))
	if err := copyExecutable(bin, dst); err != nil {
		tb.Fatalf("install a copy of %s: %v", bin, err)
	}
	return dst
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	// Plain reads and writes, as a package manager unpacking an archive
	// makes them (io.Copy of two files would let the kernel copy).
	if _, err := io.Copy(struct{ io.Writer }{out}, struct{ io.Reader }{in}); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
