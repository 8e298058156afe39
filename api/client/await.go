package client

import (
	"net/url"
	"time"
)

// Await says whether an action's answer (VMAction, AppAction) waits for
// the action to take effect: NoWait answers as soon as the change is
// stored; WaitAtMost waits, with the server's ?wait=, for at most a time.
type Await struct {
	wait    bool
	timeout time.Duration
}

// NoWait answers as soon as the action's change is stored.
var NoWait = Await{}

// WaitAtMost waits until the action took effect or failed, or until d has
// passed (0: no limit), which ends the call with a Timeout error.
func WaitAtMost(d time.Duration) Await { return Await{wait: true, timeout: d} }

// values are the action request's query parameters that say how to wait.
func (w Await) values() url.Values {
	if !w.wait {
		return url.Values{}
	}
	return url.Values{"wait": {"true"}, "timeout": {w.timeout.String()}}
}
