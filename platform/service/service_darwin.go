package service

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	kservice "github.com/kardianos/service"

	"paddock.dev/paddock/core/atomicfile"
)

// On macOS the service is a launchd job: a LaunchAgent for the user scope,
// a LaunchDaemon for the system scope. kardianos asks launchd about it;
// this file writes the plist itself, because kardianos refuses to
// overwrite one and writes it in place, and starts and stops the job with
// launchctl bootstrap and bootout, where kardianos uses the deprecated
// load and unload (kept for macOS before 10.10).

const baseName = launchdLabelPrefix

// checkSystem accepts launchd, which kardianos always picks on macOS.
func checkSystem() error { return nil }

func options(spec Spec) kservice.KeyValue {
	return kservice.KeyValue{"UserService": spec.Scope == User}
}

// DefinitionPath is the plist's path: ~/Library/LaunchAgents for the user
// scope, /Library/LaunchDaemons for the system scope.
func (s *Service) DefinitionPath() (string, error) {
	if s.spec.Scope == System {
		return filepath.Join("/Library/LaunchDaemons", s.name+".plist"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Library", "LaunchAgents", s.name+".plist"), nil
}

// Install writes the plist if it is new or differs. launchd reads it when
// the service is started, and at the next login (agent) or boot (daemon).
func (s *Service) Install() (Result, error) {
	text, err := LaunchdPlist(s.name, s.spec)
	if err != nil {
		return Result{}, err
	}
	if s.spec.Scope == System && os.Geteuid() != 0 {
		return Result{}, errors.New("installing a system service needs root: run it with sudo")
	}
	res, _, err := s.writeDefinition(text)
	if err != nil {
		return res, err
	}
	if s.spec.LogFile != "" {
		// A LaunchDaemon's log directory belongs to the user it runs as,
		// though root installs it.
		owner := ""
		if s.spec.Scope == System {
			owner = s.spec.UserName
		}
		if err := mkdirAllOwned(filepath.Dir(s.spec.LogFile), owner); err != nil {
			return res, err
		}
	}
	st, err := s.Status()
	if err != nil {
		return res, err
	}
	res.Active = st.Active()
	return res, nil
}

// Uninstall unloads the job if it is loaded and removes the plist.
func (s *Service) Uninstall() error {
	if err := s.stopInstalled(); err != nil {
		return err
	}
	if err := s.k.Uninstall(); err != nil {
		return fmt.Errorf("uninstall %s: %w", s.name, err)
	}
	path, err := s.DefinitionPath()
	if err == nil {
		atomicfile.RemoveStale(path)
	}
	return err
}

// controlError is a failed control action; launchctl says all it knows.
func (s *Service) controlError(action string, err error) error {
	return fmt.Errorf("%s %s: %w", action, s.name, err)
}

var (
	pidRE        = regexp.MustCompile(`"PID" = ([0-9]+);`)
	lastStatusRE = regexp.MustCompile(`"LastExitStatus" = ([0-9]+);`)
	plistUserRE  = regexp.MustCompile(`<key>UserName</key>\s*<string>([^<]*)</string>`)
)

// Status asks kardianos whether the job runs and launchctl for its pid and
// last exit status.
func (s *Service) Status() (Status, error) {
	path, err := s.DefinitionPath()
	if err != nil {
		return Status{}, err
	}
	st := Status{Name: s.name, Scope: s.spec.Scope.String(), Definition: path}
	ks, err := s.k.Status()
	switch {
	case errors.Is(err, kservice.ErrNotInstalled):
		st.State, st.Definition = NotInstalled, ""
		return st, nil
	case err != nil:
		return Status{}, fmt.Errorf("status of %s: %w", s.name, err)
	case ks == kservice.StatusRunning:
		st.State = Running
	default:
		st.State = Stopped
	}
	if plist, err := os.ReadFile(path); err == nil {
		if m := plistUserRE.FindSubmatch(plist); m != nil {
			st.User = html.UnescapeString(string(m[1]))
		}
	}
	// launchctl list fails for a job that is not loaded, which is a
	// stopped one; there is nothing more to say about it then.
	out, err := runTool("launchctl", "list", s.name)
	if err != nil {
		return st, nil
	}
	if m := pidRE.FindStringSubmatch(out); m != nil {
		st.PID, _ = strconv.Atoi(m[1])
	} else if m := lastStatusRE.FindStringSubmatch(out); m != nil && m[1] != "0" {
		st.State, st.Detail = Restarting, "last exit status "+m[1]
	}
	return st, nil
}

// Logs writes the daemon's log file, which the plist names as its output.
func (s *Service) Logs(ctx context.Context, w io.Writer, lines int, follow bool) error {
	if s.spec.LogFile == "" {
		return errors.New("no log file is known for this service")
	}
	return tailFile(ctx, w, s.spec.LogFile, lines, follow)
}

// forgetFailures does nothing: launchd keeps no failed state that would
// refuse a start.
func (s *Service) forgetFailures() {}

// RecentLog returns the last few lines of the daemon's log file, as
// many as the number lines says at most.
func (s *Service) RecentLog(_ time.Time, lines int) string {
	return recentFileLines(s.spec.LogFile, lines)
}

// PackagedInstances is empty: the macOS packages install no template.
func PackagedInstances() ([]string, error) { return nil, nil }

// NewPackaged is not available on macOS.
func NewPackaged(user string) (*Service, error) {
	return nil, errors.New("no packaged service instances on macOS")
}

// startJob bootstraps the job into its domain.
func (s *Service) startJob() error { return s.launchctl("start") }

// stopJob boots the job out of its domain; launchd sends the daemon
// SIGTERM and waits for it to exit.
func (s *Service) stopJob() error { return s.launchctl("stop") }

// restartJob stops the job if it runs and starts it again.
func (s *Service) restartJob() error {
	st, err := s.Status()
	if err != nil {
		return err
	}
	if st.Active() {
		if err := s.stopJob(); err != nil {
			return err
		}
	}
	return s.startJob()
}

// launchctl runs the launchctl command of action for the job.
func (s *Service) launchctl(action string) error {
	path, err := s.DefinitionPath()
	if err != nil {
		return err
	}
	version, _ := runTool("sw_vers", "-productVersion")
	// launchctl list fails for a job that is not loaded.
	_, notLoaded := runTool("launchctl", "list", s.name)
	args, err := launchctlArgs(action, s.spec.Scope, os.Getuid(), s.name, path, legacyLaunchctl(version), notLoaded == nil)
	if err != nil {
		return err
	}
	_, err = runTool("launchctl", args...)
	return err
}
