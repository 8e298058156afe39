package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// defaultInstance is the instance whose service carries no suffix; it is
// core/instance's Default, repeated here so that this package does not
// depend on the core.
const defaultInstance = "default"

// PasswordEnv names the environment variable that carries the password of
// the account a Windows service runs as; the service control manager needs
// it to run a service as an account.
const PasswordEnv = "PADDOCK_SERVICE_PASSWORD"

// Scope says who owns the service: the user's own service manager, or the
// machine's, running the daemon as a named user.
type Scope int

const (
	// User is a per-user service: a systemd user unit, a LaunchAgent. On
	// Windows, whose service manager has no per-user services, it is a
	// service that runs as the installing account.
	User Scope = iota
	// System is a machine-wide service: a systemd system unit, a
	// LaunchDaemon, a Windows service running as LocalSystem or an account.
	System
)

func (s Scope) String() string {
	if s == System {
		return "system"
	}
	return "user"
}

// Name is the service's name for an instance: the product's service name,
// with the instance appended unless it is the default one. It is the one
// source of this naming rule.
func Name(instance string) string {
	if instance == defaultInstance || instance == "" {
		return baseName
	}
	return baseName + "-" + instance
}

// Spec says what to install: which instance's daemon, at which scope, run
// from which binary with which options.
type Spec struct {
	Instance string
	Scope    Scope
	// UserName is the account a system service runs as; the VMs belong to
	// it. A user service always runs as the installing user.
	UserName string
	// Executable is the absolute path of the paddock binary.
	Executable string
	// Listen is passed to `paddock serve --listen` when not empty.
	Listen string
	// Image is passed to `paddock serve --image` when not empty.
	Image string
	// LogLevel is passed to `paddock --log-level` when not empty, so that
	// the service's daemon logs at the level its installer asked for, on
	// every OS alike.
	LogLevel string
	// LogFile receives the daemon's output where the service manager has no
	// journal of its own (launchd; Windows, where the daemon writes it).
	LogFile string
}

// Args are the arguments the service starts the binary with.
func (s Spec) Args() []string {
	args := []string{"--instance", s.instanceName()}
	if s.LogLevel != "" {
		args = append(args, "--log-level", s.LogLevel)
	}
	args = append(args, "serve")
	if s.Listen != "" {
		args = append(args, "--listen", s.Listen)
	}
	if s.Image != "" {
		args = append(args, "--image", s.Image)
	}
	return args
}

func (s Spec) instanceName() string {
	if s.Instance == "" {
		return defaultInstance
	}
	return s.Instance
}

// Description is the one-line description the service manager shows.
func (s Spec) Description() string {
	return fmt.Sprintf("Paddock daemon (instance %s)", s.instanceName())
}

// ErrInvalid marks a spec the service definition cannot carry, so that the
// command line can tell a refused request from a failed one.
var ErrInvalid = errors.New("invalid service definition")

var userNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// validate checks what every service manager needs.
func (s Spec) validate() error {
	if !filepath.IsAbs(s.Executable) {
		return fmt.Errorf("%w: the executable %q is not an absolute path", ErrInvalid, s.Executable)
	}
	if s.Scope == System && s.UserName != "" && !userNameRE.MatchString(s.UserName) {
		return fmt.Errorf("%w: user name %q: use letters, digits, '_', '.' and '-'", ErrInvalid, s.UserName)
	}
	for _, v := range append([]string{s.Executable, s.LogFile}, s.Args()...) {
		if err := printable(v); err != nil {
			return err
		}
	}
	return nil
}

// printable refuses what no service definition format here can carry:
// invalid UTF-8 and control characters such as a newline, which would end
// a unit file's line or break a plist.
func printable(v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalid, v)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %q contains the control character %U, which a service definition cannot carry", ErrInvalid, v, r)
		}
	}
	return nil
}
