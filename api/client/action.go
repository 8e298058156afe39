package client

import (
	"net/url"
	"strconv"
)

// ActionOption is an option of an action's request (VMAction, AppAction).
type ActionOption func(url.Values)

// Cold sets spec.cold with a start or a stop: true shuts the VM down fully
// rather than saving its state, and boots it fully rather than resuming a
// saved state. A start or stop without it sets spec.cold false, so that a
// stop saves and a start resumes.
func Cold(cold bool) ActionOption {
	return func(q url.Values) { q.Set("cold", strconv.FormatBool(cold)) }
}

// actionQuery is the query string of an action's request: w's wait, and
// opts.
func actionQuery(w Await, opts []ActionOption) string {
	q := w.values()
	for _, o := range opts {
		o(q)
	}
	return q.Encode()
}
