package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	kservice "github.com/kardianos/service"

	"paddock.dev/paddock/core/atomicfile"
)

// ErrNotInstalled is returned by the operations that need an installed
// service when there is none.
var ErrNotInstalled = kservice.ErrNotInstalled

// Service manages the service of one instance at one scope.
type Service struct {
	spec Spec
	name string
	k    kservice.Service
	// packaged is an instance of the packages' system template unit
	// (paddock@USER on Linux): its definition is the package's, not ours.
	packaged bool
}

// Result says what Install did.
type Result struct {
	// Path is where the definition lives.
	Path string
	// Created is true when no definition existed before.
	Created bool
	// Changed is true when the definition was written: it was new or
	// differed from what was installed.
	Changed bool
	// Active is true when the service runs; after a change it needs a
	// restart to run the new definition.
	Active bool
	// Note is advice for the user, such as how to start the service at boot.
	Note string
}

// New returns the service of spec.Instance at spec.Scope. The fields of
// spec other than Instance and Scope matter only to Install (and, where the
// manager keeps no journal, LogFile to Logs).
func New(spec Spec) (*Service, error) {
	return newNamed(spec, Name(spec.Instance))
}

// newNamed is New for a service the manager knows by name.
func newNamed(spec Spec, name string) (*Service, error) {
	cfg := &kservice.Config{
		Name:        name,
		DisplayName: displayName(spec),
		Description: spec.Description(),
		Executable:  spec.Executable,
		Arguments:   spec.Args(),
		Option:      options(spec),
	}
	if spec.Scope == System {
		cfg.UserName = spec.UserName
	}
	if err := checkSystem(); err != nil {
		return nil, err
	}
	k, err := kservice.New(controlOnly{}, cfg)
	if err != nil {
		return nil, err
	}
	return &Service{spec: spec, name: name, k: k}, nil
}

// Name is the name the service manager knows the service by.
func (s *Service) Name() string { return s.name }

// Scope is the scope the service was opened at.
func (s *Service) Scope() Scope { return s.spec.Scope }

// displayName is the name a person sees in the service manager's lists.
func displayName(spec Spec) string {
	if spec.instanceName() == defaultInstance {
		return "Paddock"
	}
	return "Paddock (" + spec.instanceName() + ")"
}

// controlOnly is the kardianos program of a Service that controls the
// service from outside; it never runs as the service itself.
type controlOnly struct{}

func (controlOnly) Start(kservice.Service) error {
	return errors.New("a service controller cannot run as the service")
}
func (controlOnly) Stop(kservice.Service) error { return nil }

// notInstalled is the error of an operation on a service that is not there.
func (s *Service) notInstalled() error {
	return fmt.Errorf("%s service %s: %w", s.spec.Scope, s.name, ErrNotInstalled)
}

// Start starts the service (on macOS: loads the job). A failed state the
// manager keeps from earlier starts is forgotten first, so that a manual
// start is never refused for the failures before it.
func (s *Service) Start() error {
	return s.control("start", func() error { s.forgetFailures(); return s.startJob() })
}

// Stop stops the service and returns when the daemon has exited (on macOS:
// unloads the job; launchd sends the daemon SIGTERM).
func (s *Service) Stop() error { return s.control("stop", s.stopJob) }

// Restart stops the service if it runs and starts it, forgetting earlier
// failures as Start does.
func (s *Service) Restart() error {
	return s.control("restart", func() error { s.forgetFailures(); return s.restartJob() })
}

// Packaged reports whether the service is an instance of a unit that the
// packages installed, which Uninstall disables but does not remove.
func (s *Service) Packaged() bool { return s.packaged }

// control runs a kardianos control action on an installed service; the
// service manager's own account of a failure comes from controlError.
func (s *Service) control(action string, f func() error) error {
	st, err := s.Status()
	if err != nil {
		return err
	}
	if !st.Installed() {
		return s.notInstalled()
	}
	if action == "stop" && !st.Active() {
		return nil // stopping a stopped service succeeds, as with systemctl
	}
	if err := f(); err != nil {
		return s.controlError(action, err)
	}
	return nil
}

// writeDefinition checks that the executable exists and writes the service
// definition text, whole, unless it is there already. It returns what it
// did and the definition it replaced, if any.
func (s *Service) writeDefinition(text string) (Result, []byte, error) {
	if _, err := os.Stat(s.spec.Executable); err != nil {
		return Result{}, nil, fmt.Errorf("%w: the executable: %v", ErrInvalid, err)
	}
	path, err := s.DefinitionPath()
	if err != nil {
		return Result{}, nil, err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Result{}, nil, err
	}
	res := Result{Path: path, Created: err != nil, Changed: string(old) != text}
	if res.Changed {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return res, old, err
		}
		if err := atomicfile.WriteFile(path, []byte(text), 0o644); err != nil {
			return res, old, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return res, old, nil
}

// stopInstalled is the start of every Uninstall: the service must be
// installed, and it is stopped first if it runs.
func (s *Service) stopInstalled() error {
	st, err := s.Status()
	if err != nil {
		return err
	}
	if !st.Installed() {
		return s.notInstalled()
	}
	if st.Active() {
		return s.Stop()
	}
	return nil
}
