package service_test

import (
	"bufio"
	"fmt"
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
		// The App's image, for an offline machine: a built image's
		// directory, passed to serve, which checks it as it starts.
		c.Run("mkdir", "-p", "/opt/img dir")
		c.Run("sh", "-c", "echo 'images: []' >'/opt/img dir/template.yaml'")
		s := &scenario{t: t, c: c, as: c.Command, bin: dir + "/paddock", instance: "odd"}
		// The level install runs at is the service's daemon's too.
		s.must("--log-level", "debug", "service", "install", "--system", "--user", owner.Name, "--image", "/opt/img dir")
		unit := s.c.Run("cat", "/etc/systemd/system/paddock-odd.service")
		if !strings.Contains(unit, `ExecStart="/opt/pad dock 100%% $HOME/paddock" "--instance" "odd" "--log-level" "debug" "serve" "--image" "/opt/img dir"`) {
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

	t.Run("bad-flags-and-start-failures", func(t *testing.T) {
		s := &scenario{t: t, c: c, as: c.Command, bin: paddock, instance: "lst"}
		// A --listen that serve would refuse is refused at install.
		out, code := s.paddock("service", "install", "--system", "--user", owner.Name, "--listen", "nonsense")
		if code != 2 || !strings.Contains(out, "--listen") {
			t.Errorf("install --listen nonsense: exit %d\n%s\nwant exit 2 naming --listen", code, out)
		}
		if s.exists("/etc/systemd/system/paddock-lst.service") {
			t.Error("a refused install left a unit")
		}
		// A valid address the daemon cannot bind (a port below 1024, as
		// an ordinary user): the start fails with the daemon's own words.
		s.must("service", "install", "--system", "--user", owner.Name, "--listen", "tcp://127.0.0.1:1")
		start := time.Now()
		out, code = s.paddock("service", "start", "--timeout", "30s")
		t.Logf("a start that fails: %v, exit %d:\n%s", time.Since(start).Round(time.Millisecond), code, out)
		if code != 1 || !strings.Contains(out, "the daemon's last lines:") || !strings.Contains(out, "127.0.0.1:1") {
			t.Errorf("start of a daemon that cannot listen: exit %d\n%s\nwant exit 1 with the daemon's own error", code, out)
		}
		s.must("service", "uninstall")
		out, code = s.paddock("service", "logs")
		if code != 1 || !strings.Contains(out, "not installed") {
			t.Errorf("logs of an uninstalled service: exit %d\n%s\nwant exit 1 and \"not installed\"", code, out)
		}
	})
	t.Run("packaged-instance", func(t *testing.T) {
		packagedInstance(t, c, paddock, owner)
	})
}

// packagedInstance runs the packages' template unit, paddock@USER, as the
// package installs it, and drives it with the service commands.
func packagedInstance(t *testing.T, c *systemdtest.Container, paddock string, owner *systemdtest.User) {
	template, err := os.ReadFile("../../packaging/systemd/paddock@.service")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Share, "paddock@.service"), template, 0o644); err != nil {
		t.Fatal(err)
	}
	c.Run("cp", paddock, "/usr/bin/paddock")
	c.Run("cp", systemdtest.SharePath+"/paddock@.service", "/usr/lib/systemd/system/paddock@.service")
	t.Cleanup(func() {
		_ = c.Command("systemctl", "disable", "--now", "paddock@"+owner.Name).Run()
		_ = c.Command("rm", "-f", "/usr/lib/systemd/system/paddock@.service", "/usr/bin/paddock").Run()
		_ = c.Command("systemctl", "daemon-reload").Run()
	})
	c.Run("systemctl", "daemon-reload")
	c.Run("systemctl", "enable", "--now", "paddock@"+owner.Name)
	unit := "paddock@" + owner.Name
	root := &scenario{t: t, c: c, as: c.Command, bin: "/usr/bin/paddock"}
	user := &scenario{t: t, c: c, as: owner.Command, bin: "/usr/bin/paddock"}

	// Root and the user it runs for both find it, and say which unit.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := root.paddock("service", "status")
		if runningRE.MatchString(out) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("root's status of the packaged instance:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// systemd names the template by the path it loaded it from: /lib is
	// /usr/lib on Debian.
	want := regexp.MustCompile(regexp.QuoteMeta(unit) + ` \(system service (/usr)?/lib/systemd/system/paddock@\.service\): running, pid (\d+), API ready`)
	root.mustMatch(want, "service", "status")
	user.mustMatch(want, "service", "status")

	// Root's commands talk to that daemon rather than start their own.
	root.must("vm", "list")
	if n := strings.Count(c.Run("sh", "-c", "pgrep -x paddock || true"), "\n"); n != 1 {
		t.Errorf("%d paddock processes run after root's vm list, want only the service's", n)
	}

	// The daemon runs as the user with the user's home and no
	// DOCKER_CONFIG: the App's docker context (platform/dockercontext:
	// $DOCKER_CONFIG, else ~/.docker) and the image caches are the user's.
	env := c.Run("sh", "-c", `pid=$(pgrep -x paddock) && stat -c 'uid=%u' /proc/$pid && tr '\0' '\n' </proc/$pid/environ`)
	if !strings.Contains(env, fmt.Sprintf("uid=%d\n", owner.UID)) || !strings.Contains(env, "\nHOME="+owner.Home+"\n") || strings.Contains(env, "DOCKER_CONFIG=") {
		t.Errorf("the service's daemon is not %s with its home (want uid=%d, HOME=%s, no DOCKER_CONFIG):\n%s", owner.Name, owner.UID, owner.Home, env)
	}

	// Manual restarts in a row are never refused by the start limit.
	for i := 0; i < 7; i++ {
		root.must("service", "restart", "--no-wait")
	}
	root.mustMatch(runningRE, "service", "restart")

	// The user may not stop it: the hint comes first.
	out, code := user.paddock("service", "stop")
	if code != 1 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "needs root") {
		t.Errorf("a user's stop of the system service: exit %d\n%s\nwant exit 1 with the hint on the first line", code, out)
	}

	// With the service stopped, root's commands say so and start nothing.
	root.mustContain(": stopped", "service", "stop")
	out, code = root.paddock("vm", "list")
	if code != 1 || !strings.Contains(out, "paddock service start --system") {
		t.Errorf("root's vm list beside the stopped service: exit %d\n%s\nwant exit 1 saying how to start it", code, out)
	}
	if n := strings.TrimSpace(c.Run("sh", "-c", "pgrep -c -x paddock || true")); n != "0" {
		t.Errorf("%s paddock processes run after root's vm list beside a stopped service, want none", n)
	}

	// Uninstall disables the instance and says that the unit stays.
	root.mustContain("belongs to the paddock package and stays", "service", "uninstall")
	if root.exists("/etc/systemd/system/multi-user.target.wants/" + unit + ".service") {
		t.Error("uninstall left the instance enabled")
	}
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

// shutdowns counts the daemon's clean shutdowns in the unit's journal,
// read with journalctl, since the service commands show no log of an
// uninstalled service.
func (s *scenario) shutdowns() int {
	s.t.Helper()
	args := []string{"journalctl", "--no-pager", "--output=cat", "--unit=paddock.service"}
	if s.show[1] == "--user" {
		args = append(args, "--user")
	}
	out, err := s.as(args...).Output()
	if err != nil {
		s.t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return strings.Count(string(out), "shutdown complete")
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
