package service

import (
	"slices"
	"testing"
	"time"
)

// The Windows service configuration is a pure function of the install
// options; these check it on every OS.
func TestWindowsServiceSettings(t *testing.T) {
	s := windowsServiceSettings(Spec{Executable: `C:\Paddock\paddock.exe`}, `HOST\alice`)
	if s.Account != `HOST\alice` {
		t.Errorf("account of a service for the installer: %q, want HOST\\alice", s.Account)
	}
	if !slices.Equal(s.Dependencies, []string{"afunix"}) {
		t.Errorf("dependencies: %v, want the AF_UNIX driver alone", s.Dependencies)
	}
	if len(s.RestartDelays) != 3 || s.RestartDelays[0] != 2*time.Second || s.ResetPeriod != time.Minute {
		t.Errorf("recovery: restart after %v, reset after %v; want a restart 2 s after every failure, reset after 1 min", s.RestartDelays, s.ResetPeriod)
	}
	if !s.RecoverNonCrashFailures {
		t.Error("a daemon that stops itself with an error is not restarted")
	}
	if s.PreShutdownTimeout <= stopBound {
		t.Errorf("pre-shutdown timeout %v leaves the daemon no time for its stop bound %v", s.PreShutdownTimeout, stopBound)
	}

	s = windowsServiceSettings(Spec{Scope: System, UserName: "bob", Listen: "tcp://127.0.0.1:47610"}, `HOST\admin`)
	if s.Account != `.\bob` {
		t.Errorf("account of a local user: %q, want .\\bob", s.Account)
	}
	if !slices.Equal(s.Dependencies, []string{"afunix", "Tcpip"}) {
		t.Errorf("dependencies with --listen: %v, want afunix and Tcpip", s.Dependencies)
	}
	if got := windowsAccount(`CORP\carol`, `HOST\admin`); got != `CORP\carol` {
		t.Errorf("a domain account: %q, want it as given", got)
	}
}

// A stopped service's exit codes: the daemon's own code, not the 1066
// (ERROR_SERVICE_SPECIFIC_ERROR) that stands for it.
func TestWindowsExitDetail(t *testing.T) {
	for _, tc := range []struct {
		win32, specific uint32
		failed          bool
		detail          string
	}{
		{0, 0, false, ""},
		{1077, 0, false, ""}, // never started
		{1066, 1, true, "exit code 1"},
		{1066, 3, true, "exit code 3"},
		{1067, 0, true, "Windows error 1067"}, // the process ended unexpectedly
	} {
		failed, detail := windowsExitDetail(tc.win32, tc.specific)
		if failed != tc.failed || detail != tc.detail {
			t.Errorf("windowsExitDetail(%d, %d) = %v, %q; want %v, %q", tc.win32, tc.specific, failed, detail, tc.failed, tc.detail)
		}
	}
}

// Install grants the right to log on as a service to the user account the
// service runs as, named or the installer's own, looked up by a name
// LookupAccountName reads; never to the built-in service accounts.
func TestServiceLogonGrant(t *testing.T) {
	for _, tc := range []struct {
		account, name string
		grant         bool
	}{
		{`.\bob`, `PC-ANN\bob`, true},                                   // --user bob
		{`PC-ANN\ann`, `PC-ANN\ann`, true},                              // the installer's own
		{`CORP\carol`, `CORP\carol`, true},                              // a domain account
		{windowsAccount("alice", `PC-ANN\admin`), `PC-ANN\alice`, true}, // as Install names it
		{"LocalSystem", "", false},
		{`.\LocalSystem`, "", false},
		{`NT AUTHORITY\SYSTEM`, "", false},
		{`NT AUTHORITY\LocalService`, "", false},
		{`nt authority\network service`, "", false},
		{`NT SERVICE\paddock`, "", false},
	} {
		name, grant := serviceLogonGrant(tc.account, "PC-ANN")
		if name != tc.name || grant != tc.grant {
			t.Errorf("serviceLogonGrant(%q) = %q, %v; want %q, %v", tc.account, name, grant, tc.name, tc.grant)
		}
	}
}
