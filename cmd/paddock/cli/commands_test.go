//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"sigs.k8s.io/yaml"
)

// A mistyped command is answered with the commands it may have meant.
func TestAMistypedCommandSuggestsTheRightOne(t *testing.T) {
	for args, want := range map[string]string{
		"stauts":  "Did you mean this?\n\tstart\n\tstatus",
		"vm lsit": "Did you mean this?\n\tlist",
	} {
		_, errOut, code := inProcess(t, strings.Fields(args)...)
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("paddock %s: exit %d %q; want exit 2 and %q", args, code, errOut, want)
		}
	}
}

// Commands that lose a VM's disk refuse without a terminal to ask on,
// naming --force; other deletes do not ask.
func TestDestroyingCommandsNeedForceWithoutATerminal(t *testing.T) {
	e := newEnv(t, "default")
	for _, args := range [][]string{{"delete"}, {"delete", "app"}, {"delete", "vm", "dev"}, {"delete", "vm/a", "configmap/b"}, {"reset"}} {
		_, errOut, code := e.run("", args...)
		if code != exitUsage || !strings.Contains(errOut, "pass --force (-f)") || !strings.Contains(errOut, "loses") {
			t.Errorf("paddock %v without a terminal: exit %d %q; want exit 2 naming --force", args, code, errOut)
		}
	}
	// Forced, or a ConfigMap, they go on to the daemon: none runs here.
	for _, args := range [][]string{{"delete", "--force"}, {"reset", "-f"}, {"delete", "configmap", "x"}} {
		if _, errOut, code := e.run("", args...); code != exitError || !strings.Contains(errOut, "paddock serve") {
			t.Errorf("paddock %v: exit %d %q; want it to ask the daemon", args, code, errOut)
		}
	}
}

// On a terminal, delete and reset ask first, naming what is lost; only a
// yes goes on.
func TestDestroyingCommandsAskOnATerminal(t *testing.T) {
	e := newEnv(t, "default")
	for _, c := range []struct {
		args   []string
		answer string
		code   int
		want   string // on stderr
	}{
		{[]string{"delete"}, "n\n", exitError, "not confirmed: nothing was changed"},
		{[]string{"delete"}, "\n", exitError, "not confirmed"},
		{[]string{"reset"}, "no\n", exitError, "not confirmed"},
		{[]string{"delete"}, "y\n", exitError, "paddock serve"}, // went on, to a daemon that is not there
		{[]string{"reset"}, "yes\n", exitError, "paddock serve"},
	} {
		errOut, code := runOnTerminal(t, e, c.answer, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "image, container and volume") || !strings.Contains(errOut, "Continue? [y/N]") {
			t.Errorf("paddock %v answering %q: exit %d %q; want exit %d and %q after the question", c.args, c.answer, code, errOut, c.code, c.want)
		}
	}
}

// runOnTerminal runs paddock with a pseudo-terminal as its standard input,
// typing answer into it, and returns its stderr and exit code.
func runOnTerminal(t *testing.T, e *env, answer string, args ...string) (string, int) {
	t.Helper()
	ptm, pts := openPTY(t)
	defer ptm.Close()
	cmd := exec.Command(e.binary(), args...)
	cmd.Env = e.environ()
	var errOut bytes.Buffer
	cmd.Stdin, cmd.Stderr = pts, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	if _, err := ptm.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("paddock %v did not end: %s", args, errOut.String())
	}
	return errOut.String(), cmd.ProcessState.ExitCode()
}

// openPTY opens a pseudo-terminal: its controlling side and the terminal.
func openPTY(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	return ptm, pts
}

// Read-only commands never start a daemon: with none running they say so
// and exit 1, and none runs after them.
func TestReadOnlyCommandsStartNoDaemon(t *testing.T) {
	e := newEnv(t, "default")
	e.autostart = true // they could start one, and must not
	t.Cleanup(func() { stopStartedDaemon(e) })
	for _, c := range []struct {
		args []string
		out  string // on stdout
		err  string // on stderr
	}{
		{[]string{"status"}, "Daemon:      not running", ""},
		{[]string{"status", "-o", "json"}, `"running": false`, ""},
		{[]string{"get", "vms"}, "", "no paddock daemon runs for instance default"},
		{[]string{"get", "app"}, "", "this command does not start one: 'paddock start' starts it"},
		{[]string{"vm", "list"}, "", "no paddock daemon runs"},
		{[]string{"vm", "get", "dev"}, "", "no paddock daemon runs"},
		{[]string{"vm", "logs", "dev"}, "", "no paddock daemon runs"},
		{[]string{"version"}, "daemon not running", "no paddock daemon runs"},
	} {
		out, errOut, code := e.run("", c.args...)
		if code != exitError || !strings.Contains(out, c.out) || !strings.Contains(errOut, c.err) {
			t.Errorf("paddock %v: exit %d, %q %q; want exit 1, %q %q", c.args, code, out, errOut, c.out, c.err)
		}
	}
	if out, errOut, code := e.run("", "version", "--client"); code != 0 || !strings.HasPrefix(out, "paddock ") || strings.Contains(out, "daemon") {
		t.Errorf("version --client: exit %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(e.path("pid_file")); err == nil {
		t.Error("a read-only command started a daemon")
	}
}

// With the daemon running, status and version show it, and status prints
// the same as a document with -o json or yaml.
func TestStatusAndVersionShowTheDaemon(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	out, errOut, code := e.run("", "status")
	if code != 0 || !strings.Contains(out, "Daemon:      running, version ") || !strings.Contains(out, "App:         none: 'paddock start' makes one") {
		t.Errorf("status: exit %d %q %q", code, out, errOut)
	}
	for _, o := range []string{"json", "yaml"} {
		out := e.mustRun("status", "-o", o)
		var v statusView
		if err := yaml.Unmarshal([]byte(out), &v); err != nil || !v.Daemon.Running || v.Daemon.Socket != e.path("socket") || v.App != nil || v.Instance != "default" {
			t.Errorf("status -o %s: %v %+v from %q", o, err, v, out)
		}
	}
	if _, errOut, code := e.run("", "status", "-o", "xml"); code != exitUsage || !strings.Contains(errOut, "use text, json or yaml") {
		t.Errorf("status -o xml: exit %d %q", code, errOut)
	}
	out = e.mustRun("version")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "paddock ") || !strings.HasPrefix(lines[1], "daemon ") {
		t.Errorf("version: %q", out)
	}
}

// 'set --dry-run' has the daemon check the change as it would make it,
// and makes none.
func TestSetDryRunIsCheckedByTheDaemon(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	tooMany := "cpus=" + strconv.Itoa(runtime.NumCPU()+1)
	if _, errOut, code := e.run("", "set", tooMany, "--dry-run"); code != exitRejected || !strings.Contains(errOut, "spec.cpus: must be between 1 and") {
		t.Errorf("set %s --dry-run: exit %d %q; want exit 3 and the reason", tooMany, code, errOut)
	}
	out, errOut, code := e.run("", "set", "cpus=1", "memory=1GiB", "--dry-run")
	if code != 0 || !strings.Contains(out, "nothing changed (dry run): it would be stopped, with the moby engine, 1 CPUs, 1GiB memory") {
		t.Errorf("set cpus=1 --dry-run: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := e.run("", "get", "app"); code != exitError || !strings.Contains(errOut, "not found") {
		t.Errorf("a dry run made an App: exit %d %q", code, errOut)
	}
}

// 'paddock list' shows every instance of the user, its daemon and App,
// and starts no daemon.
func TestListShowsEveryInstance(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	e.mustRun("--instance", "other", "service", "paths") // the instance exists, its daemon does not run
	out := e.mustRun("list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "INSTANCE ") ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "default running none") ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[2]), " "), "other stopped -") {
		t.Fatalf("list:\n%s", out)
	}
	var rows []instanceState
	decodeJSON(t, e.mustRun("list", "-o", "json"), &rows)
	if len(rows) != 2 || rows[0].Name != "default" || rows[0].Daemon != "running" || rows[0].App != "none" || rows[0].APISocket != e.path("socket") ||
		rows[1].Name != "other" || rows[1].Daemon != "stopped" {
		t.Fatalf("list -o json: %+v", rows)
	}
	if _, err := os.Stat(strings.TrimSpace(e.mustRun("--instance", "other", "service", "paths", "pid_file"))); err == nil {
		t.Error("list started a daemon for instance other")
	}
}

// 'paddock shutdown' stops a daemon a command started, from its pid file;
// 'service stop' on it says to use shutdown.
func TestShutdownStopsADaemonACommandStarted(t *testing.T) {
	e := newEnv(t, "default")
	e.autostart = true
	t.Cleanup(func() { stopStartedDaemon(e) })
	if _, errOut, code := e.run(demoFile, "apply", "-f", "-"); code != 0 { // starts the daemon
		t.Fatalf("apply: exit %d %q", code, errOut)
	}
	pidData, err := os.ReadFile(e.path("pid_file"))
	if err != nil {
		t.Fatalf("no daemon was started: %v", err)
	}
	pid := strings.TrimSpace(string(pidData))
	if _, errOut, code := e.run("", "service", "stop"); code != exitError || !strings.Contains(errOut, "stop it with 'paddock shutdown'") {
		t.Errorf("service stop on a daemon a command started: exit %d %q", code, errOut)
	}
	out := e.mustRun("shutdown")
	if !strings.Contains(out, "stopped the daemon of instance default (pid "+pid+")") {
		t.Errorf("shutdown said %q", out)
	}
	e.autostart = false
	if _, errOut, code := e.run("", "get", "vms"); code != exitError || !strings.Contains(errOut, "no paddock daemon runs") {
		t.Errorf("after shutdown: exit %d %q", code, errOut)
	}
	if out := e.mustRun("shutdown"); !strings.Contains(out, "nothing to stop") {
		t.Errorf("shutdown with none running said %q", out)
	}
}
