package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A bad global flag is a usage error of every command, named before any
// daemon is started with it.
func TestGlobalFlagsAreCheckedBeforeAnyDaemonStarts(t *testing.T) {
	e := newEnv(t, "default")
	e.autostart = true
	t.Cleanup(func() { stopStartedDaemon(e) })
	cases := []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"level flag, no daemon needed", "", []string{"--log-level=invalid", "version"}, `unknown log level "invalid": use one of trace, debug, info, warn, warning, error, fatal`},
		{"level flag, daemon needed", "", []string{"--log-level", "loud", "get", "vms"}, "--log-level (or PADDOCK_LOG_LEVEL)"},
		{"level env", "PADDOCK_LOG_LEVEL=verbose", []string{"vm", "list"}, `unknown log level "verbose"`},
		{"instance flag", "", []string{"--instance", "Not_A_Name", "get", "vms"}, `--instance (or PADDOCK_INSTANCE): invalid instance name "Not_A_Name"`},
		{"instance env", "PADDOCK_INSTANCE=-x", []string{"version"}, `invalid instance name "-x"`},
	}
	for _, c := range cases {
		cmd := exec.Command(paddockBin, c.args...)
		cmd.Env = e.environ()
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		var errOut strings.Builder
		cmd.Stderr = &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%s: paddock %v (%s) exited %d with %q; want exit 2 and %q", c.name, c.args, c.env, code, errOut.String(), c.want)
		}
	}
	if _, err := os.Stat(e.path("pid_file")); err == nil {
		t.Error("a command with a bad global flag started a daemon")
	}
	// Every level name is accepted, in any case.
	for _, l := range []string{"trace", "DEBUG", "Warning", "fatal"} {
		if _, errOut, code := e.run("", "--log-level", l, "version", "--client"); code != 0 {
			t.Errorf("--log-level %s: exit %d %q", l, code, errOut)
		}
	}
}

// `eval "$(paddock service paths -o shell)"` hands the paths to the
// shell's children too.
func TestServicePathsShellExportsToChildren(t *testing.T) {
	e := newEnv(t, "default")
	sh := exec.Command("sh", "-c", `eval "$("$1" service paths -o shell)" && sh -c 'echo "$PADDOCK_SOCKET|$PADDOCK_INSTANCE"'`, "sh", paddockBin)
	sh.Env = e.environ()
	out, err := sh.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := e.path("socket") + "|default\n"; string(out) != want {
		t.Fatalf("a child of the shell sees %q, want %q", out, want)
	}
}
