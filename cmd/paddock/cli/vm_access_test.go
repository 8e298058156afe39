//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"
)

// Logs and shell go through the daemon: the CLI reads no file of the
// machine's. The test plays the host agent, which writes the log.
func TestVMLogsAndShellGoThroughTheDaemon(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")

	if _, errOut, code := e.run("", "vm", "logs", "dev"); code != 1 || !strings.Contains(errOut, "has no stderr log yet: it was never started") {
		t.Fatalf("logs of a VM never started: exit %d %q", code, errOut)
	}
	if _, errOut, code := e.run("", "vm", "logs", "nope"); code != 1 || !strings.Contains(errOut, `vm "nope" in namespace "default" not found`) {
		t.Fatalf("logs of a missing VM: exit %d %q", code, errOut)
	}
	if _, errOut, code := e.run("", "vm", "shell", "dev", "true"); code != 1 || !strings.Contains(errOut, "vm dev is not running: start it with 'paddock vm start dev'") {
		t.Fatalf("shell into a stopped VM: exit %d %q", code, errOut)
	}

	log := filepath.Join(e.path("lima_home"), "dev", filenames.HostAgentStderrLog)
	if err := os.WriteFile(log, []byte("booting\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := e.mustRun("vm", "logs", "dev"); out != "booting\n" {
		t.Fatalf("vm logs printed %q", out)
	}

	// Following: what is appended arrives; a log the next start truncates
	// is followed from its new beginning; an interrupt ends it with 0.
	follow := exec.Command(e.binary(), "vm", "logs", "dev", "-f")
	follow.Env = e.environ()
	var stderr bytes.Buffer
	lines := startLines(t, follow, &stderr)
	defer follow.Process.Kill()
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("vm logs -f printed %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("vm logs -f did not print %q: %s", want, stderr.String())
		}
	}
	expect("booting")
	appendTo(t, log, "VM running\n")
	expect("VM running")
	time.Sleep(500 * time.Millisecond) // let the follower reach the end before the restart truncates
	if err := os.WriteFile(log, []byte("again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	expect("again")
	follow.Process.Signal(syscall.SIGINT)
	if err := follow.Wait(); err != nil {
		t.Fatalf("vm logs -f ended by an interrupt: %v %s", err, stderr.String())
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
