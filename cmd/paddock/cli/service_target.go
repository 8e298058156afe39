package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/platform/service"
)

// serviceTarget holds the flags that select which service a `paddock
// service` command acts on: the instance's, at the user scope unless
// --system says otherwise.
type serviceTarget struct {
	c      *cli
	system bool
}

func (t *serviceTarget) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&t.system, "system", false,
		"act on the system service (a systemd system unit, a LaunchDaemon) instead of the user's; found by itself when only that one is installed")
}

// spec returns the spec of the selected instance and scope.
func (t *serviceTarget) spec() (service.Spec, error) {
	if err := instance.ValidateName(t.c.instance); err != nil {
		return service.Spec{}, withCode(exitUsage, err)
	}
	spec := service.Spec{Instance: t.c.instance, Scope: service.User}
	if t.system {
		spec.Scope = service.System
	}
	return spec, nil
}

// open returns the selected service. Without --system it is the user's,
// unless only a system service of the instance is installed that runs as
// the caller (or the caller is root), or none is installed and the caller
// is root, who has no user services in practice. A system service is the
// unit "service install --system" wrote or, for the default instance, an
// instance of the packages' template, paddock@USER.
func (t *serviceTarget) open(cmd *cobra.Command) (*service.Service, error) {
	spec, err := t.spec()
	if err != nil {
		return nil, err
	}
	svc, err := service.New(spec)
	if err != nil {
		return nil, err
	}
	if t.system || cmd.Flags().Changed("system") {
		if svc.Scope() == service.System && !installed(svc) {
			if p, err := t.packaged(); p != nil || err != nil {
				return p, err
			}
		}
		return svc, nil
	}
	if installed(svc) {
		return svc, nil
	}
	spec.Scope = service.System
	sys, err := service.New(spec)
	if err != nil {
		return nil, err
	}
	if installed(sys) {
		if st, err := sys.Status(); err == nil && (os.Geteuid() == 0 || st.User == currentUserName()) {
			return sys, nil
		}
	}
	if p, err := t.packaged(); p != nil || err != nil {
		return p, err
	}
	if os.Geteuid() == 0 {
		return sys, nil
	}
	return svc, nil
}

// packaged returns the instance of the packages' template unit that runs
// the default instance's daemon for the caller: root's when only one user
// has one, a user's own otherwise; nil when there is none.
func (t *serviceTarget) packaged() (*service.Service, error) {
	if t.c.instance != instance.Default {
		return nil, nil
	}
	users, err := service.PackagedInstances()
	if err != nil || len(users) == 0 {
		return nil, err
	}
	if os.Geteuid() != 0 {
		if slices.Contains(users, currentUserName()) {
			return service.NewPackaged(currentUserName())
		}
		return nil, nil
	}
	if len(users) > 1 {
		return nil, fmt.Errorf("the package's service runs for several users (paddock@%s): run the command as the one you mean, e.g. sudo -u %s paddock service status",
			strings.Join(users, ", paddock@"), users[0])
	}
	return service.NewPackaged(users[0])
}

// openWithLog is open for the service's log: where the service manager
// keeps no journal, the log file in the log directory of the account the
// service runs as.
func (t *serviceTarget) openWithLog(cmd *cobra.Command) (*service.Service, error) {
	svc, err := t.open(cmd)
	if err != nil || runtime.GOOS == "linux" {
		return svc, err
	}
	st, err := svc.Status()
	if err != nil {
		return nil, err
	}
	paths, err := t.pathsFor(st.User)
	if err != nil {
		return nil, err
	}
	spec := service.Spec{Instance: t.c.instance, Scope: svc.Scope(), LogFile: paths["log_file"]}
	return service.New(spec)
}

// installed reports whether the service's definition file exists; on
// Windows, whose definition is a registry key and no file, whether the
// service manager knows the service.
func installed(svc *service.Service) bool {
	if runtime.GOOS == "windows" {
		st, err := svc.Status()
		return err == nil && st.Installed()
	}
	path, err := svc.DefinitionPath()
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// pathsFor returns the paths of the instance as the account name sees
// them: the caller's own, or, when root acts for another account, those
// that account resolves.
func (t *serviceTarget) pathsFor(name string) (map[string]string, error) {
	if name == "" || runtime.GOOS == "windows" || name == currentUserName() || os.Geteuid() != 0 {
		p, err := t.c.Paths()
		if err != nil {
			return nil, err
		}
		return p.Map(), nil
	}
	out, err := runAsUser(name, "--instance", t.c.instance, "service", "paths", "-o", "json")
	if err != nil {
		return nil, fmt.Errorf("resolve the paths of %s: %w", name, err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("resolve the paths of %s: %w", name, err)
	}
	return m, nil
}

func currentUserName() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.Username
}

// systemUser is the account a system service runs as: --user, or the user
// who ran sudo, or the caller when not root.
func systemUser(flag string) (string, error) {
	switch {
	case flag != "":
		return flag, nil
	case os.Getenv("SUDO_USER") != "" && os.Getenv("SUDO_USER") != "root":
		return os.Getenv("SUDO_USER"), nil
	case os.Geteuid() != 0:
		return currentUserName(), nil
	}
	return "", usageError("--system needs --user NAME: the service runs as the user who owns the VMs")
}

// serviceError gives an error of the service package its exit code: a
// definition that cannot be written is rejected.
func serviceError(err error) error {
	if errors.Is(err, service.ErrInvalid) {
		return withCode(exitRejected, err)
	}
	return err
}
