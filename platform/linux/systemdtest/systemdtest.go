package systemdtest

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// EnvE2E is the environment variable that enables tests under a real
// systemd: set to 1, they run, and a missing prerequisite fails them.
const EnvE2E = "PADDOCK_E2E"

//go:embed sysd-ns.sh
var script []byte

// SharePath is where the container sees the host directory it shares.
const SharePath = "/share"

// Container is a booted systemd in its own namespaces.
type Container struct {
	t      testing.TB
	id     string
	base   string
	script string
	lower  string // the root file system booted; empty: the host's
	// Share is the host directory the container sees at SharePath.
	Share string
}

// RequireE2E skips t unless EnvE2E is 1; with it, it fails t when a
// prerequisite of Boot is missing.
func RequireE2E(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvE2E) != "1" {
		t.Skip("set " + EnvE2E + "=1 to run under a real systemd")
	}
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"unshare", "nsenter", "setpriv", "systemctl", "journalctl", "systemd-analyze", "loginctl", "useradd"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if _, err := os.Stat("/lib/systemd/systemd"); err != nil {
		missing = append(missing, "/lib/systemd/systemd")
	}
	if len(missing) > 0 {
		t.Fatalf("tests under a real systemd need %s (packaging/ci-deps.sh installs the packages)", strings.Join(missing, ", "))
	}
}

// Boot starts a container of the host's root file system and stops it
// when t ends. The share directory is readable by every user inside.
func Boot(t testing.TB) *Container {
	t.Helper()
	return boot(t, "")
}

// BootRoot is Boot of the root file system in the directory root, whose
// own systemd runs.
func BootRoot(t testing.TB, root string) *Container {
	t.Helper()
	return boot(t, root)
}

func boot(t testing.TB, lower string) *Container {
	t.Helper()
	RequireE2E(t)
	dir := t.TempDir()
	c := &Container{
		t:      t,
		lower:  lower,
		id:     fmt.Sprintf("t%d-%d", os.Getpid(), time.Now().UnixNano()%1_000_000),
		base:   filepath.Join(dir, "run"),
		script: filepath.Join(dir, "sysd-ns.sh"),
		Share:  filepath.Join(dir, "share"),
	}
	if err := os.WriteFile(c.script, script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.Share, 0o755); err != nil {
		t.Fatal(err)
	}
	// The users inside need to read the share, whatever the umask.
	if err := os.Chmod(c.Share, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := c.sysdNS("up", c.id, c.Share).CombinedOutput()
	t.Cleanup(func() {
		start := time.Now()
		if out, err := c.sysdNS("down", c.id).CombinedOutput(); err != nil {
			t.Errorf("stop the container: %v\n%s", err, out)
		}
		t.Logf("container %s down in %v", c.id, time.Since(start).Round(time.Millisecond))
	})
	if err != nil {
		t.Fatalf("boot systemd in namespaces: %v\n%s", err, out)
	}
	t.Logf("container %s booted in %v", c.id, time.Since(start).Round(time.Millisecond))
	return c
}

// sysdNS runs the container script with this process's environment,
// less the host's Paddock settings (PADDOCK_*): commands run inside
// inherit it, and they stand for a machine that has none of its own.
func (c *Container) sysdNS(args ...string) *exec.Cmd {
	cmd := exec.Command(c.script, args...)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PADDOCK_") })
	cmd.Env = append(env, "SYSD_NS_BASE="+c.base)
	if c.lower != "" {
		cmd.Env = append(cmd.Env, "SYSD_NS_LOWER="+c.lower)
	}
	return cmd
}

// Command returns a command that runs argv inside the container as root.
func (c *Container) Command(argv ...string) *exec.Cmd {
	return c.sysdNS(append([]string{"exec", c.id}, argv...)...)
}

// Run runs argv inside as root and returns its combined output; it fails
// the test if argv fails.
func (c *Container) Run(argv ...string) string {
	c.t.Helper()
	out, err := c.Command(argv...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// User is an account inside the container.
type User struct {
	c    *Container
	Name string
	UID  int
	Home string
}

// AddUser creates an account with a home directory.
func (c *Container) AddUser(name string, uid int) *User {
	c.t.Helper()
	c.Run("useradd", "--create-home", "--uid", fmt.Sprint(uid), "--user-group", name)
	return &User{c: c, Name: name, UID: uid, Home: "/home/" + name}
}

// EnableLinger makes logind start the user's systemd manager without a
// login, as at boot, and waits until it runs.
func (u *User) EnableLinger() {
	u.c.t.Helper()
	u.c.Run("loginctl", "enable-linger", u.Name)
	unit := fmt.Sprintf("user@%d.service", u.UID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := u.c.Command("systemctl", "is-active", unit).Output()
		if strings.TrimSpace(string(out)) == "active" {
			return
		}
		if time.Now().After(deadline) {
			u.c.t.Fatalf("%s is %q after 30s", unit, bytes.TrimSpace(out))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Command returns a command that runs argv inside as the user, with the
// environment of a login: HOME, USER, and XDG_RUNTIME_DIR for reaching the
// user's systemd manager.
func (u *User) Command(argv ...string) *exec.Cmd {
	return u.c.Command(append([]string{
		"setpriv", "--reuid=" + fmt.Sprint(u.UID), "--regid=" + fmt.Sprint(u.UID), "--init-groups",
		"env", "-i", "HOME=" + u.Home, "USER=" + u.Name, "LOGNAME=" + u.Name,
		fmt.Sprintf("XDG_RUNTIME_DIR=/run/user/%d", u.UID),
		"PATH=/usr/local/bin:/usr/bin:/bin",
	}, argv...)...)
}

// Run runs argv as the user and returns its combined output; it fails the
// test if argv fails.
func (u *User) Run(argv ...string) string {
	u.c.t.Helper()
	out, err := u.Command(argv...).CombinedOutput()
	if err != nil {
		u.c.t.Fatalf("as %s: %s: %v\n%s", u.Name, strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// ExitCode returns the exit code of a finished command's error: 0 for
// nil, -1 for a command that did not run to an exit.
func ExitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
