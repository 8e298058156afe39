package service

import (
	"fmt"
	"strings"
	"time"
)

// windowsSettings is what Install gives the Windows service control manager
// beyond the command line: a pure function of the install options, so that
// it is tested on every OS (service_windows.go applies it).
type windowsSettings struct {
	// Account is the account the service runs as: .\NAME for a local
	// account, DOMAIN\NAME as given.
	Account string
	// Dependencies are the services that must run first: the AF_UNIX
	// driver for the API's Unix socket, and TCP/IP when --listen asks for
	// a TCP address too.
	Dependencies []string
	// RestartDelays are the recovery actions: restart after each delay,
	// for the first, second and later failures.
	RestartDelays []time.Duration
	// ResetPeriod is how long the service must run without failing before
	// the SCM counts failures from the first again.
	ResetPeriod time.Duration
	// RecoverNonCrashFailures applies the recovery actions also when the
	// daemon stops itself with an error (SERVICE_STOPPED, non-zero exit
	// code), not only when its process dies.
	RecoverNonCrashFailures bool
	// PreShutdownTimeout is how long Windows waits at shutdown for the
	// service, which is told before other services stop: the daemon's own
	// bound for stopping every VM, and some slack.
	PreShutdownTimeout time.Duration
}

// stopBound is the daemon's bound for a graceful stop (every VM stopped),
// which the service definitions of every OS give the daemon.
const stopBound = 120 * time.Second

// windowsServiceSettings returns the settings of spec's service, for an
// installer running as current (DOMAIN\NAME).
func windowsServiceSettings(spec Spec, current string) windowsSettings {
	s := windowsSettings{
		Account:                 windowsAccount(spec.UserName, current),
		Dependencies:            []string{"afunix"},
		RestartDelays:           []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second},
		ResetPeriod:             60 * time.Second,
		RecoverNonCrashFailures: true,
		PreShutdownTimeout:      stopBound + 10*time.Second,
	}
	if spec.Listen != "" {
		s.Dependencies = append(s.Dependencies, "Tcpip")
	}
	return s
}

// windowsAccount is the account for user name (empty: the installer's own).
func windowsAccount(name, current string) string {
	switch {
	case name == "":
		return current
	case strings.Contains(name, `\`):
		return name
	}
	return `.\` + name
}

// builtinServiceAccounts hold the right to log on as a service from
// Windows itself (lower case, as given to the SCM, with or without ".\").
var builtinServiceAccounts = map[string]bool{
	"localsystem": true, `nt authority\system`: true,
	`nt authority\localservice`: true, `nt authority\local service`: true,
	`nt authority\networkservice`: true, `nt authority\network service`: true,
}

// serviceLogonGrant decides whether Install grants account (as the SCM is
// given it) the right to log on as a service (SeServiceLogonRight), which
// the SCM needs to start a service as a user account and which Windows
// gives no user by default (only the Services console grants it on its
// own; CreateService does not). It returns the name to look the account's
// SID up by: .\NAME, a local account, as COMPUTER\NAME, which
// LookupAccountName reads; and false for the built-in service accounts
// and NT SERVICE's virtual accounts, which hold the right already.
func serviceLogonGrant(account, computer string) (name string, grant bool) {
	lower := strings.ToLower(account)
	if builtinServiceAccounts[strings.TrimPrefix(lower, `.\`)] || strings.HasPrefix(lower, `nt service\`) {
		return "", false
	}
	if rest, ok := strings.CutPrefix(account, `.\`); ok {
		return computer + `\` + rest, true
	}
	return account, true
}

// Exit codes of a stopped service as the SCM reports them.
const (
	errorServiceSpecificError = 1066 // ERROR_SERVICE_SPECIFIC_ERROR
	errorServiceNeverStarted  = 1077 // ERROR_SERVICE_NEVER_STARTED
)

// windowsExitDetail reads a stopped service's exit codes: whether it
// failed, and how, in words. A service that ends with an error of its own
// (the daemon does) reports ERROR_SERVICE_SPECIFIC_ERROR as its Win32 exit
// code and its own code beside it, which is the one worth showing.
func windowsExitDetail(win32, specific uint32) (failed bool, detail string) {
	switch win32 {
	case 0, errorServiceNeverStarted:
		return false, ""
	case errorServiceSpecificError:
		return true, fmt.Sprintf("exit code %d", specific)
	}
	return true, fmt.Sprintf("Windows error %d", win32)
}
