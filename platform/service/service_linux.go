package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	kservice "github.com/kardianos/service"

	"paddock.dev/paddock/core/atomicfile"
)

// On Linux the service is a systemd unit. kardianos starts, stops and
// restarts it; this file writes the unit itself (kardianos refuses to
// overwrite one, writes it in place, and renders RestartSec=120 and a
// user unit wanted by multi-user.target) and asks systemctl for the
// status, which tells an auto-restarting or failed unit apart from a
// running one.

const baseName = "paddock"

// checkSystem makes sure kardianos drives systemd: its other Linux
// backends have no user services and none of the handling here.
func checkSystem() error {
	sys := kservice.ChosenSystem()
	if sys == nil || sys.String() != "linux-systemd" {
		return errors.New("no systemd on this host: Paddock's service needs systemd as the init system (/run/systemd/system is missing)")
	}
	return nil
}

// options are kardianos's options for spec: only the scope matters, as
// the unit is written here.
func options(spec Spec) kservice.KeyValue {
	return kservice.KeyValue{"UserService": spec.Scope == User}
}

func (s *Service) unit() string { return s.name + ".service" }

// packagedTemplate is the system unit template of the packages, whose
// instance is the user the daemon of the default instance runs as:
// systemctl enable --now paddock@alice.
const packagedTemplate = "/usr/lib/systemd/system/" + baseName + "@.service"

// PackagedInstances returns the users of the instances of the packages'
// template that systemd has loaded (running or failed ones) or that are
// enabled.
func PackagedInstances() ([]string, error) {
	if checkSystem() != nil {
		return nil, nil
	}
	if _, err := os.Stat(packagedTemplate); err != nil {
		return nil, nil
	}
	out, err := runTool("systemctl", "list-units", "--all", "--plain", "--no-legend", "--type=service", baseName+"@*.service")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var users []string
	add := func(unit string) {
		u := strings.TrimSuffix(strings.TrimPrefix(unit, baseName+"@"), ".service")
		if u != "" && !seen[u] {
			seen[u] = true
			users = append(users, u)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			add(f[0])
		}
	}
	links, _ := filepath.Glob("/etc/systemd/system/*.wants/" + baseName + "@*.service")
	for _, l := range links {
		add(filepath.Base(l))
	}
	return users, nil
}

// NewPackaged returns the instance of the packages' template unit that
// runs the default instance's daemon as user: paddock@USER.
func NewPackaged(user string) (*Service, error) {
	if !userNameRE.MatchString(user) {
		return nil, fmt.Errorf("%w: user name %q", ErrInvalid, user)
	}
	svc, err := newNamed(Spec{Scope: System, UserName: user, Executable: "/usr/bin/paddock"}, baseName+"@"+user)
	if err != nil {
		return nil, err
	}
	svc.packaged = true
	return svc, nil
}

// forgetFailures makes systemd forget the unit's failed state and its
// count of recent starts, so that a manual start is not refused by
// StartLimitBurst for the restarts before it. It fails only for a unit
// systemd does not know, which the start reports itself.
func (s *Service) forgetFailures() { _, _ = s.systemctl("reset-failed", s.unit()) }

// DefinitionPath is where Install writes the unit: /etc/systemd/system for
// the system scope, the user's systemd configuration directory for the
// user scope; for a packaged instance, the package's template.
func (s *Service) DefinitionPath() (string, error) {
	if s.packaged {
		return packagedTemplate, nil
	}
	if s.spec.Scope == System {
		return filepath.Join("/etc/systemd/system", s.unit()), nil
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "systemd", "user", s.unit()), nil
}

// systemctl runs systemctl at the service's scope.
func (s *Service) systemctl(args ...string) (string, error) {
	if s.spec.Scope == User {
		args = append([]string{"--user"}, args...)
	}
	out, err := runTool("systemctl", args...)
	if err != nil && s.spec.Scope == User && strings.Contains(err.Error(), "connect to bus") {
		err = fmt.Errorf("%w\nno systemd user manager runs for this user: log in to a session, or let it run without one: loginctl enable-linger %s", err, currentUser())
	}
	return out, err
}

// Install writes the unit if it is new or differs, reloads systemd and
// enables the unit, so that it starts at boot (system) or when the user's
// manager starts (user). It does not start the service.
func (s *Service) Install() (Result, error) {
	text, err := SystemdUnit(s.spec)
	if err != nil {
		return Result{}, err
	}
	if s.spec.Scope == System {
		if os.Geteuid() != 0 {
			return Result{}, errors.New("installing a system service needs root: run it with sudo")
		}
		if _, err := user.Lookup(s.spec.UserName); err != nil {
			return Result{}, fmt.Errorf("%w: the service's user %q: %v", ErrInvalid, s.spec.UserName, err)
		}
	}
	res, old, err := s.writeDefinition(text)
	if err != nil {
		return res, err
	}
	if err := s.enable(); err != nil {
		// Put back what was there, so that a failed install leaves no
		// unit that systemd never loaded (and a later command would find).
		if res.Created {
			os.Remove(res.Path)
		} else if res.Changed {
			if werr := atomicfile.WriteFile(res.Path, old, 0o644); werr != nil {
				err = fmt.Errorf("%w; restoring the previous unit failed too: %v", err, werr)
			}
		}
		return Result{}, err
	}
	st, err := s.Status()
	if err != nil {
		return res, err
	}
	res.Active = st.Active()
	if s.spec.Scope == User && !lingering(currentUser()) {
		res.Note = "the service starts with your first login; to start it at boot, run: loginctl enable-linger " + currentUser()
	}
	return res, nil
}

// enable makes systemd load the unit as written and start it at boot or
// login.
func (s *Service) enable() error {
	if _, err := s.systemctl("daemon-reload"); err != nil {
		return err
	}
	_, err := s.systemctl("enable", s.unit())
	return err
}

// Uninstall stops the service if it runs, disables it and removes the unit
// Install wrote; a packaged instance is only stopped and disabled.
func (s *Service) Uninstall() error {
	if err := s.stopInstalled(); err != nil {
		return err
	}
	if _, err := s.systemctl("disable", s.unit()); err != nil {
		return err
	}
	if s.packaged {
		_, _ = s.systemctl("reset-failed", s.unit())
		return nil
	}
	path, err := s.DefinitionPath()
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	atomicfile.RemoveStale(path)
	if _, err := s.systemctl("daemon-reload"); err != nil {
		return err
	}
	// Forget a failed state, so that nothing of the unit is left listed.
	// It fails when systemd already forgot the unit, which is the goal.
	_, _ = s.systemctl("reset-failed", s.unit())
	return nil
}

// controlError adds to a failed control action what `systemctl status`
// says about the unit, since kardianos reports no more than systemctl's
// exit status.
func (s *Service) controlError(action string, err error) error {
	args := []string{"status", "--no-pager", "--full", "--lines=20", s.unit()}
	if s.spec.Scope == User {
		args = append([]string{"--user"}, args...)
	}
	// systemctl status exits non-zero for a unit that is not running;
	// its output is what matters.
	out, _ := exec.Command("systemctl", args...).CombinedOutput()
	if s.spec.Scope == System && os.Geteuid() != 0 {
		// The hint first: systemctl's account of a refused request is long.
		return fmt.Errorf("%s %s: controlling a system service needs root unless polkit allows it: run it with sudo (%v); systemctl status says:\n%s", action, s.unit(), err, indent(string(out)))
	}
	return fmt.Errorf("%s %s: %v; systemctl status says:\n%s", action, s.unit(), err, indent(string(out)))
}

// RecentLog returns the last few lines, as many as the number lines says
// at most, that the daemon wrote to the journal after the time since, or
// "" when the journal has none or cannot be read.
func (s *Service) RecentLog(since time.Time, lines int) string {
	args := []string{"--no-pager", "--quiet", "--output=cat", "--unit=" + s.unit(),
		"--lines=" + strconv.Itoa(lines), "--since=@" + strconv.FormatInt(since.Unix(), 10)}
	if s.spec.Scope == User {
		args = append([]string{"--user"}, args...)
	}
	out, err := runTool("journalctl", args...)
	if err != nil {
		return ""
	}
	return strings.TrimRight(out, "\n")
}

// Status reports the unit's state from systemctl's properties.
func (s *Service) Status() (Status, error) {
	out, err := s.systemctl("show", "--property=LoadState,ActiveState,SubState,MainPID,Result,ExecMainCode,ExecMainStatus,FragmentPath,User", s.unit())
	if err != nil {
		return Status{}, err
	}
	p := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			p[k] = v
		}
	}
	st := Status{Name: s.name, Scope: s.spec.Scope.String(), Definition: p["FragmentPath"], User: p["User"]}
	if p["LoadState"] == "not-found" || p["FragmentPath"] == "" {
		st.State = NotInstalled
		return st, nil
	}
	switch p["ActiveState"] {
	case "active", "reloading":
		st.State = Running
	case "activating":
		st.State = Starting
		if p["SubState"] == "auto-restart" {
			st.State = Restarting
			st.Detail = lastExit(p)
		}
	case "deactivating":
		st.State = Stopping
	case "failed":
		st.State = Failed
		st.Detail = lastExit(p)
	default:
		st.State = Stopped
	}
	if pid, _ := strconv.Atoi(p["MainPID"]); pid > 0 {
		st.PID = pid
	}
	return st, nil
}

// systemdExits name the exit statuses systemd itself gives a service it
// could not start, for those a user can act on.
var systemdExits = map[string]string{
	"200": "CHDIR: systemd could not enter the working directory",
	"203": "EXEC: systemd could not run the binary; was it moved or removed?",
	"217": "USER: the service's user does not exist",
}

// lastExit describes how the daemon last ended, from the unit's
// ExecMainCode (a CLD_* code) and ExecMainStatus.
func lastExit(p map[string]string) string {
	if p["Result"] == "start-limit-hit" {
		return "systemd stopped restarting it: it ended 5 times within 60 s (the unit's start limit); " +
			"fix what its log says, then start it again, which resets the limit"
	}
	how := "exit status " + p["ExecMainStatus"]
	if name, ok := systemdExits[p["ExecMainStatus"]]; ok {
		how += " " + name
	}
	switch p["ExecMainCode"] {
	case "2":
		how = "killed by signal " + p["ExecMainStatus"]
	case "3":
		how = "dumped core on signal " + p["ExecMainStatus"]
	}
	return "result " + p["Result"] + ", " + how
}

// Logs writes the unit's journal to w: its last few lines, as many as
// the number lines says (all if lines is 0), and with follow what comes
// after them until ctx ends.
func (s *Service) Logs(ctx context.Context, w io.Writer, lines int, follow bool) error {
	args := []string{"--no-pager", "--quiet", "--output=short-iso", "--unit=" + s.unit()}
	if s.spec.Scope == User {
		args = append([]string{"--user"}, args...)
	}
	if lines > 0 {
		args = append(args, "--lines="+strconv.Itoa(lines))
	}
	if follow {
		args = append(args, "--follow")
	}
	cmd := exec.CommandContext(ctx, "journalctl", args...)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("journalctl %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// lingering reports whether logind starts name's user manager at boot.
func lingering(name string) bool {
	_, err := os.Stat(filepath.Join("/var/lib/systemd/linger", name))
	return err == nil
}

// startJob, stopJob and restartJob are kardianos's control actions.
func (s *Service) startJob() error   { return s.k.Start() }
func (s *Service) stopJob() error    { return s.k.Stop() }
func (s *Service) restartJob() error { return s.k.Restart() }
