package archives

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"paddock.dev/paddock/cmd/paddock/cli"
)

// repoRoot is the repository's top directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// run runs a program with env added to the test's environment and returns
// its combined output; it fails the test unless the exit code is want.
func run(t *testing.T, want int, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		t.Fatalf("%s %s: exit code %d, want %d; output:\n%s", name, strings.Join(args, " "), code, want, out)
	}
	return string(out)
}

// cliAccepts fails the test unless paddock's CLI knows the command and
// flags of args: it runs them with --help, which parses them and runs
// nothing.
func cliAccepts(t *testing.T, args []string) {
	t.Helper()
	var out bytes.Buffer
	if code := cli.Run(append(append([]string{}, args...), "--help"), &out, &out); code != 0 {
		t.Errorf("paddock %s: the CLI refuses it (exit code %d):\n%s", strings.Join(args, " "), code, out.String())
	}
}
