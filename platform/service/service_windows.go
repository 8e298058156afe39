package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	kservice "github.com/kardianos/service"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"
)

// On Windows the service is a service of the service control manager
// (SCM). The SCM has no per-user services: both scopes install a service
// that runs as an account, the installing user's unless one is named; the
// SCM needs that account's password, read from PasswordEnv, and the
// account needs the right to log on as a service, which Install grants it
// (logonright_windows.go). Lima's WSL2 VMs belong to that account.
// kardianos creates, starts, stops and deletes the service; a second
// install updates it through the SCM, which kardianos refuses to do.

const baseName = "paddock"

func checkSystem() error { return nil }

func options(spec Spec) kservice.KeyValue {
	return kservice.KeyValue{
		"StartType": "automatic",
		// A crash restarts the daemon in seconds.
		"OnFailure":              "restart",
		"OnFailureDelayDuration": "2s",
		"OnFailureResetPeriod":   60,
		"Password":               os.Getenv(PasswordEnv),
	}
}

// account is the account the service runs as.
func (s *Service) account() (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	return windowsAccount(s.spec.UserName, u.Username), nil
}

// DefinitionPath is the service's registry key.
func (s *Service) DefinitionPath() (string, error) {
	return `HKLM\SYSTEM\CurrentControlSet\Services\` + s.name, nil
}

// Install creates the service, or updates its command line, account and
// description when it exists.
func (s *Service) Install() (Result, error) {
	if err := s.spec.validate(); err != nil {
		return Result{}, err
	}
	if _, err := os.Stat(s.spec.Executable); err != nil {
		return Result{}, fmt.Errorf("%w: the executable: %v", ErrInvalid, err)
	}
	account, err := s.account()
	if err != nil {
		return Result{}, err
	}
	if os.Getenv(PasswordEnv) == "" {
		return Result{}, fmt.Errorf("the service runs as %s and the service manager needs that account's password: set %s", account, PasswordEnv)
	}
	// The SCM starts a service as a user account only if the account may
	// log on as a service, which no user may by default.
	if err := grantServiceLogon(account); err != nil {
		return Result{}, fmt.Errorf("the service runs as %s, which needs the right to log on as a service: %w; "+
			"grant it in secpol.msc (Local Policies, User Rights Assignment, Log on as a service)", account, err)
	}
	path, _ := s.DefinitionPath()
	st, err := s.Status()
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: path, Created: !st.Installed(), Changed: true, Active: st.Active()}
	if !st.Installed() {
		s.k, err = kservice.New(controlOnly{}, &kservice.Config{
			Name: s.name, DisplayName: displayName(s.spec), Description: s.spec.Description(),
			Executable: s.spec.Executable, Arguments: s.spec.Args(), UserName: account, Option: options(s.spec),
		})
		if err != nil {
			return res, err
		}
		if err := s.k.Install(); err != nil {
			return res, fmt.Errorf("install %s: %w", s.name, err)
		}
	}
	return res, s.update(account)
}

// update writes the service's whole configuration through the SCM, on a
// first install (after kardianos created the service and its event
// source) as on a reinstall: command line, account, dependencies, recovery
// actions and the pre-shutdown timeout.
func (s *Service) update(account string) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager: %w", err)
	}
	defer m.Disconnect()
	h, err := m.OpenService(s.name)
	if err != nil {
		return fmt.Errorf("open service %s: %w", s.name, err)
	}
	defer h.Close()
	cfg, err := h.Config()
	if err != nil {
		return fmt.Errorf("read the configuration of %s: %w", s.name, err)
	}
	words := []string{syscall.EscapeArg(s.spec.Executable)}
	for _, a := range s.spec.Args() {
		words = append(words, syscall.EscapeArg(a))
	}
	cfg.BinaryPathName = strings.Join(words, " ")
	cfg.DisplayName = displayName(s.spec)
	cfg.Description = s.spec.Description()
	cfg.ServiceStartName = account
	cfg.Password = os.Getenv(PasswordEnv)
	cfg.StartType = mgr.StartAutomatic
	settings := windowsServiceSettings(s.spec, account)
	cfg.Dependencies = settings.Dependencies
	if err := h.UpdateConfig(cfg); err != nil {
		return fmt.Errorf("update service %s: %w", s.name, err)
	}
	var actions []mgr.RecoveryAction
	for _, d := range settings.RestartDelays {
		actions = append(actions, mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: d})
	}
	if err := h.SetRecoveryActions(actions, uint32(settings.ResetPeriod.Seconds())); err != nil {
		return fmt.Errorf("set the recovery actions of %s: %w", s.name, err)
	}
	if err := h.SetRecoveryActionsOnNonCrashFailures(settings.RecoverNonCrashFailures); err != nil {
		return fmt.Errorf("set the recovery of %s from failures without a crash: %w", s.name, err)
	}
	info := preshutdownInfo{Timeout: uint32(settings.PreShutdownTimeout.Milliseconds())}
	if err := windows.ChangeServiceConfig2(h.Handle, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO, (*byte)(unsafe.Pointer(&info))); err != nil {
		return fmt.Errorf("set the pre-shutdown timeout of %s: %w", s.name, err)
	}
	return nil
}

// preshutdownInfo is SERVICE_PRESHUTDOWN_INFO: how long, in milliseconds,
// Windows waits at shutdown for a service that takes the pre-shutdown
// control.
type preshutdownInfo struct {
	Timeout uint32
}

// Uninstall stops the service if it runs and deletes it.
func (s *Service) Uninstall() error {
	if err := s.stopInstalled(); err != nil {
		return err
	}
	if err := s.k.Uninstall(); err != nil {
		return fmt.Errorf("uninstall %s: %w", s.name, err)
	}
	return nil
}

// controlError is a failed control action; the SCM's error says why.
func (s *Service) controlError(action string, err error) error {
	return fmt.Errorf("%s %s: %w", action, s.name, err)
}

// Status asks the SCM for the service's state and process id.
func (s *Service) Status() (Status, error) {
	path, _ := s.DefinitionPath()
	st := Status{Name: s.name, Scope: s.spec.Scope.String(), Definition: path}
	m, err := mgr.Connect()
	if err != nil {
		return Status{}, fmt.Errorf("connect to the service manager: %w", err)
	}
	defer m.Disconnect()
	h, err := m.OpenService(s.name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		st.State, st.Definition = NotInstalled, ""
		return st, nil
	}
	if err != nil {
		return Status{}, fmt.Errorf("open service %s: %w", s.name, err)
	}
	defer h.Close()
	q, err := h.Query()
	if err != nil {
		return Status{}, fmt.Errorf("query service %s: %w", s.name, err)
	}
	switch q.State {
	case svc.Running, svc.ContinuePending, svc.PausePending, svc.Paused:
		st.State = Running
	case svc.StartPending:
		st.State = Starting
	case svc.StopPending:
		st.State = Stopping
	default:
		st.State = Stopped
		if failed, detail := windowsExitDetail(q.Win32ExitCode, q.ServiceSpecificExitCode); failed {
			st.State, st.Detail = Failed, detail
		}
	}
	st.PID = int(q.ProcessId)
	return st, nil
}

// Logs writes the daemon's log file.
func (s *Service) Logs(ctx context.Context, w io.Writer, lines int, follow bool) error {
	if s.spec.LogFile == "" {
		return errors.New("no log file is known for this service")
	}
	return tailFile(ctx, w, filepath.Clean(s.spec.LogFile), lines, follow)
}

// forgetFailures does nothing: the service control manager keeps no failed
// state that would refuse a start.
func (s *Service) forgetFailures() {}

// RecentLog returns the last few lines of the daemon's log file, as
// many as the number lines says at most.
func (s *Service) RecentLog(_ time.Time, lines int) string {
	return recentFileLines(s.spec.LogFile, lines)
}

// PackagedInstances is empty: Windows has no packaged service template.
func PackagedInstances() ([]string, error) { return nil, nil }

// NewPackaged is not available on Windows.
func NewPackaged(user string) (*Service, error) {
	return nil, errors.New("no packaged service instances on Windows")
}

// startJob, stopJob and restartJob are kardianos's control actions.
func (s *Service) startJob() error   { return s.k.Start() }
func (s *Service) stopJob() error    { return s.k.Stop() }
func (s *Service) restartJob() error { return s.k.Restart() }
