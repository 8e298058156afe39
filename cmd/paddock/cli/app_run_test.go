package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The guest's side of 'paddock nerdctl', run here by the host's sh (as the
// guest's root runs it, without sudo): nerdctl gets the engine's namespace
// and the arguments as given; a guest without nerdctl exits 127, which the
// command turns into its error.
func TestNerdctlRunsInTheEngineNamespaceOrSaysItIsMissing(t *testing.T) {
	run := func(path string) (string, int) {
		argv := nerdctlCommand("moby", []string{"ps", "--format", "{{.Names}} 'x'"})
		if argv[0] != "sudo" {
			t.Fatalf("not run as root: %q", argv)
		}
		cmd := exec.Command(argv[1], argv[2:]...)
		cmd.Env = []string{"PATH=" + path}
		out, err := cmd.Output()
		if exit, ok := err.(*exec.ExitError); ok {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("the test needs sh: %v", err)
	}
	bin := t.TempDir()
	if err := os.Symlink(sh, filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}
	if _, code := run(bin); code != exitNoTool {
		t.Fatalf("without nerdctl: exit %d, want %d", code, exitNoTool)
	}
	fake := "#!" + sh + "\nfor a in \"$@\"; do echo \"[$a]\"; done\n" // FAKE nerdctl: prints its arguments
	if err := os.WriteFile(filepath.Join(bin, "nerdctl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := run(bin)
	if want := "[--namespace]\n[moby]\n[ps]\n[--format]\n[{{.Names}} 'x']\n"; code != 0 || out != want {
		t.Fatalf("nerdctl got %q (exit %d), want %q", out, code, want)
	}
	if got := strings.Join(ctrCommand("default", []string{"images", "ls"}), " "); got != "sudo ctr -n default images ls" {
		t.Fatalf("ctr: %s", got)
	}
}
