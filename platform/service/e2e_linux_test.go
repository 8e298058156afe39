package service_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock.dev/paddock/platform/linux/systemdtest"
)

// These tests run `paddock service` under a real systemd booted in
// namespaces (systemdtest), against the real `paddock serve`, as a system
// service and as a lingering user's service.

// runningRE matches a status line of a running service with a ready API.
var runningRE = regexp.MustCompile(`: running, pid (\d+), API ready`)

func TestServiceUnderSystemd(t *testing.T) {
	systemdtest.RequireE2E(t)
	c := systemdtest.Boot(t)
	bin := filepath.Join(c.Share, "paddock")
	start := time.Now()
	build := exec.Command("go", "build", "-o", bin, "paddock.dev/paddock/cmd/paddock")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build paddock: %v\n%s", err, out)
	}
	t.Logf("paddock built in %v", time.Since(start).Round(time.Millisecond))
	paddock := systemdtest.SharePath + "/paddock"

	owner := c.AddUser("vmowner", 1501)
	desk := c.AddUser("desk", 1502)
	desk.EnableLinger()

	// The two lifecycles run side by side; the edge cases follow, so that
	// systemd-analyze verify sees no other instance's unit.
	t.Run("lifecycle", func(t *testing.T) {
		lifecycles(t, c, paddock, owner, desk)
	})
	t.Run("path-needing-escapes", func(t *testing.T) {
		dir := "/opt/pad dock 100% $HOME"
		c.Run("mkdir", "-p", dir, "/opt/back\\slash")
		c.Run("cp", paddock, dir+"/paddock")
		c.Run("cp", paddock, "/opt/back\\slash/paddock")
		s := &scenario{t: t, c: c, as: c.Command, bin: dir + "/paddock", instance: "odd"}
		s.must("service", "install", "--system", "--user", owner.Name)
		unit := s.c.Run("cat", "/etc/systemd/system/paddock-odd.service")
		if !strings.Contains(unit, `ExecStart="/opt/pad dock 100%% $HOME/paddock" "--instance" "odd" "serve"`) {
			t.Errorf("ExecStart is not escaped as expected:\n%s", unit)
		}
		s.verifyUnit([]string{"systemd-analyze", "verify"}, "/etc/systemd/system/paddock-odd.service")
		s.must("service", "start")
		s.mustMatch(runningRE, "service", "status")
		s.must("service", "uninstall")
		s.mustContain("not installed", "service", "status", "--system")

		// systemd cannot run a binary whose path has a backslash: refused.
		out, code := s.paddockIn("/opt/back\\slash/paddock", "service", "install", "--system", "--user", owner.Name)
		if code != 3 || !strings.Contains(out, "systemd cannot run an executable") {
			t.Errorf("install from a path with a backslash: exit %d\n%s\nwant exit 3 and a reason", code, out)
		}
		if s.exists("/etc/systemd/system/paddock-odd.service") {
			t.Error("a refused install left a unit")
		}
	})
	t.Run("failed-install-leaves-nothing", func(t *testing.T) {
		// root has no systemd user manager: a user-scope install fails
		// with systemd's words and a hint, and leaves no unit behind.
		s := &scenario{t: t, c: c, as: c.Command, bin: paddock}
		out, code := s.paddock("service", "install")
		if code != 1 || !strings.Contains(out, "Failed to connect to bus") || !strings.Contains(out, "loginctl enable-linger root") {
			t.Errorf("user install without a user manager: exit %d\n%s\nwant exit 1 with systemctl's error and a hint", code, out)
		}
		if s.exists("/root/.config/systemd/user/paddock.service") {
			t.Error("the failed install left its unit")
		}
		s.mustContain("paddock (system service): not installed", "service", "status")
	})
	t.Run("failure-reason", func(t *testing.T) {
		// The unit's binary disappears after install: systemd cannot run
		// it, and the user learns why from systemd's own exit status.
		dir := "/opt/gone"
		c.Run("mkdir", "-p", dir)
		c.Run("cp", paddock, dir+"/paddock")
		s := &scenario{t: t, c: c, as: c.Command, bin: dir + "/paddock", instance: "gone"}
		s.must("service", "install", "--system", "--user", owner.Name)
		c.Run("rm", dir+"/paddock")
		out, code := s.paddockIn(paddock, "service", "start", "--timeout", "4s")
		if code == 0 || !strings.Contains(out, "exit status 203") {
			t.Errorf("start of a unit whose binary is gone: exit %d, output:\n%s\nwant a failure naming exit status 203 (EXEC)", code, out)
		}
		t.Logf("start of a unit whose binary is gone: exit %d: %s", code, out)
		if out, code := s.paddockIn(paddock, "service", "uninstall"); code != 0 {
			t.Errorf("uninstall: exit %d\n%s", code, out)
		}
	})
}

func lifecycles(t *testing.T, c *systemdtest.Container, paddock string, owner, desk *systemdtest.User) {
	t.Run("system", func(t *testing.T) {
		t.Parallel()
		s := &scenario{
			t: t, c: c, as: c.Command, bin: paddock,
			install:  []string{"--system", "--user", owner.Name},
			unit:     "/etc/systemd/system/paddock.service",
			wants:    "/etc/systemd/system/multi-user.target.wants/paddock.service",
			verify:   []string{"systemd-analyze", "verify"},
			show:     []string{"systemctl", "show"},
			statusAt: []string{"--system"},
		}
		s.lifecycle()
	})
	t.Run("user", func(t *testing.T) {
		t.Parallel()
		dir := desk.Home + "/.config/systemd/user"
		s := &scenario{
			t: t, c: c, as: desk.Command, bin: paddock,
			unit:   dir + "/paddock.service",
			wants:  dir + "/default.target.wants/paddock.service",
			verify: []string{"systemd-analyze", "--user", "verify"},
			show:   []string{"systemctl", "--user", "show"},
		}
		s.lifecycle()
	})
}

// scenario is one service's life under systemd, driven through the CLI.
type scenario struct {
	t        *testing.T
	c        *systemdtest.Container
	as       func(argv ...string) *exec.Cmd // runs a command as the CLI's user
	bin      string                         // paddock inside the container
	instance string
	install  []string // extra flags of install
	statusAt []string // flags that select the service before it is installed
	unit     string   // where the unit must land
	wants    string   // the symlink that enables it
	verify   []string // systemd-analyze for the unit's scope
	show     []string // systemctl show for the unit's scope
}

func (s *scenario) paddockIn(bin string, args ...string) (string, int) {
	if s.instance != "" {
		args = append([]string{"--instance", s.instance}, args...)
	}
	out, err := s.as(append([]string{bin}, args...)...).CombinedOutput()
	return string(out), systemdtest.ExitCode(err)
}

func (s *scenario) paddock(args ...string) (string, int) { return s.paddockIn(s.bin, args...) }

func (s *scenario) must(args ...string) string {
	s.t.Helper()
	out, code := s.paddock(args...)
	if code != 0 {
		s.t.Fatalf("paddock %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

func (s *scenario) mustContain(want string, args ...string) string {
	s.t.Helper()
	out := s.must(args...)
	if !strings.Contains(out, want) {
		s.t.Fatalf("paddock %s printed:\n%s\nwant %q in it", strings.Join(args, " "), out, want)
	}
	return out
}

// mustMatch runs paddock and returns the pid that re's first group matched.
func (s *scenario) mustMatch(re *regexp.Regexp, args ...string) string {
	s.t.Helper()
	out := s.must(args...)
	m := re.FindStringSubmatch(out)
	if m == nil {
		s.t.Fatalf("paddock %s printed:\n%s\nwant a match of %s", strings.Join(args, " "), out, re)
	}
	return m[1]
}

func (s *scenario) exists(path string) bool {
	return s.c.Command("test", "-e", path).Run() == nil
}

func (s *scenario) verifyUnit(verify []string, path string) {
	s.t.Helper()
	out, err := s.as(append(verify, path)...).CombinedOutput()
	if err != nil || len(out) > 0 {
		s.t.Errorf("%s %s: %v\n%s", strings.Join(verify, " "), path, err, out)
	}
}

// property reads one property of the unit.
func (s *scenario) property(name string) string {
	s.t.Helper()
	out, err := s.as(append(s.show, "--value", "--property="+name, "paddock.service")...).Output()
	if err != nil {
		s.t.Fatalf("systemctl show %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// shutdowns counts the daemon's clean shutdowns in the service's log.
func (s *scenario) shutdowns() int {
	s.t.Helper()
	return strings.Count(s.must("service", "logs", "--lines", "0"), "shutdown complete")
}

// waitRestarted waits until the service runs again with a pid other than
// old and its API is ready, and returns the new pid.
func (s *scenario) waitRestarted(old string, within time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		out, _ := s.paddock("service", "status")
		if m := runningRE.FindStringSubmatch(out); m != nil && m[1] != old {
			return m[1]
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the service did not come back within %v; last status:\n%s", within, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// follower is a running `paddock service logs -f`.
type follower struct {
	s   *scenario
	cmd *exec.Cmd
	pid string // inside the container
	mu  sync.Mutex
	out strings.Builder
}

// followLogs starts `paddock service logs -f`.
func (s *scenario) followLogs() *follower {
	s.t.Helper()
	f := &follower{s: s, cmd: s.as("sh", "-c", `echo $$; exec "$0" service logs -f --lines 1`, s.bin)}
	pipe, err := f.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	f.cmd.Stderr = f.cmd.Stdout
	if err := f.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	line, err := r.ReadString('\n')
	if err != nil {
		s.t.Fatalf("logs -f: %v", err)
	}
	f.pid = strings.TrimSpace(line)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			f.mu.Lock()
			f.out.Write(buf[:n])
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	s.t.Cleanup(func() {
		if f.cmd.ProcessState == nil { // a failed test left it running
			_ = s.c.Command("kill", "-KILL", f.pid).Run()
			_ = f.cmd.Wait()
		}
	})
	// journalctl prints the last line at once: from then on it follows.
	f.waitFor("\n")
	return f
}

// waitFor waits until the followed log shows want.
func (f *follower) waitFor(want string) {
	f.s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		f.mu.Lock()
		out := f.out.String()
		f.mu.Unlock()
		if strings.Contains(out, want) {
			return
		}
		if time.Now().After(deadline) {
			f.s.t.Fatalf("paddock service logs -f did not show %q within 15s:\n%s", want, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// interrupt stops the follower as Ctrl+C would; it must exit 0.
func (f *follower) interrupt() {
	f.s.t.Helper()
	f.s.c.Run("kill", "-INT", f.pid)
	if err := f.cmd.Wait(); err != nil {
		f.s.t.Errorf("paddock service logs -f after an interrupt: %v", err)
	}
}

func (s *scenario) lifecycle() {
	t := s.t
	s.mustContain(": not installed", append([]string{"service", "status"}, s.statusAt...)...)

	start := time.Now()
	s.mustContain("installed", append([]string{"service", "install"}, s.install...)...)
	t.Logf("install: %v", time.Since(start).Round(time.Millisecond))
	if !s.exists(s.unit) || !s.exists(s.wants) {
		t.Fatalf("install left no enabled unit at %s", s.unit)
	}
	s.verifyUnit(s.verify, s.unit)

	// Installing again succeeds; a changed unit is put back.
	s.mustContain("already up to date", append([]string{"service", "install"}, s.install...)...)
	s.c.Run("sh", "-c", "echo '# edited' >> '"+s.unit+"'")
	s.mustContain("updated", append([]string{"service", "install"}, s.install...)...)
	if unit := s.c.Run("cat", s.unit); strings.Contains(unit, "# edited") {
		t.Errorf("a second install did not rewrite the unit:\n%s", unit)
	}
	s.mustContain(": stopped", "service", "status")

	start = time.Now()
	s.mustMatch(runningRE, "service", "start")
	t.Logf("start until the API is ready: %v", time.Since(start).Round(time.Millisecond))
	pid := s.mustMatch(runningRE, "service", "status")

	logs := s.followLogs()

	start = time.Now()
	s.mustContain(": stopped", "service", "stop")
	t.Logf("stop: %v", time.Since(start).Round(time.Millisecond))
	logs.waitFor("shutdown complete")
	logs.interrupt()
	if got := s.property("Result") + " " + s.property("ExecMainStatus"); got != "success 0" {
		t.Errorf("after stop, Result and ExecMainStatus are %q, want a clean exit", got)
	}
	if n := s.shutdowns(); n != 1 {
		t.Errorf("the log shows %d clean shutdowns after one stop, want 1", n)
	}

	newPID := s.mustMatch(runningRE, "service", "restart")
	if newPID == pid {
		t.Errorf("restart kept pid %s", pid)
	}
	if n := s.shutdowns(); n != 1 {
		t.Errorf("the log shows %d clean shutdowns after a stop and a restart from stopped, want 1", n)
	}

	// A crash: systemd restarts the daemon within seconds.
	start = time.Now()
	s.c.Run("kill", "-KILL", newPID)
	s.waitRestarted(newPID, 30*time.Second)
	t.Logf("kill -9 until the API answers again: %v", time.Since(start).Round(time.Millisecond))
	if n := s.property("NRestarts"); n != "1" {
		t.Errorf("NRestarts = %s after one crash, want 1", n)
	}

	// Uninstall stops the running service gracefully first.
	s.mustContain("uninstalled", "service", "uninstall")
	if n := s.shutdowns(); n != 2 {
		t.Errorf("the log shows %d clean shutdowns after a stop, a crash and an uninstall, want 2", n)
	}
	s.mustContain(": not installed", append([]string{"service", "status"}, s.statusAt...)...)
	for _, p := range []string{s.unit, s.wants} {
		if s.exists(p) {
			t.Errorf("uninstall left %s", p)
		}
	}
	if left := s.c.Run("sh", "-c", "ls -A \"$(dirname '"+s.unit+"')\" | grep -c '^paddock\\.service' || true"); strings.TrimSpace(left) != "0" {
		t.Errorf("uninstall left files beside the unit: %s", left)
	}
	s.mustContain("nothing to remove", append([]string{"service", "uninstall"}, s.statusAt...)...)
}
