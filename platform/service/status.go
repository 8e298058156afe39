package service

import "fmt"

// State is what the service manager says about the service.
type State string

// The states a service is reported in.
const (
	NotInstalled State = "not installed"
	Stopped      State = "stopped"
	Starting     State = "starting"
	Running      State = "running"
	Stopping     State = "stopping"
	// Restarting is a service that exited and that the manager will start
	// again after its restart delay.
	Restarting State = "restarting"
	Failed     State = "failed"
)

// Status is the service manager's view of the service.
type Status struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
	State State  `json:"state"`
	// User is the account a system service runs as, where the manager
	// says; empty for the caller's own.
	User string `json:"user,omitempty"`
	// PID is the daemon's process id while it runs, else 0.
	PID int `json:"pid,omitempty"`
	// Definition is the path of the unit, plist or, on Windows, the
	// registry key of the service.
	Definition string `json:"definition,omitempty"`
	// Detail says why a service failed or is restarting, in the manager's
	// own terms.
	Detail string `json:"detail,omitempty"`
}

// Installed reports whether the service manager knows the service.
func (s Status) Installed() bool { return s.State != NotInstalled }

// Active reports whether a daemon process runs or is about to.
func (s Status) Active() bool {
	switch s.State {
	case Starting, Running, Stopping, Restarting:
		return true
	}
	return false
}

func (s Status) String() string {
	out := string(s.State)
	if s.PID > 0 {
		out += fmt.Sprintf(", pid %d", s.PID)
	}
	if s.Detail != "" {
		out += " (" + s.Detail + ")"
	}
	return out
}
