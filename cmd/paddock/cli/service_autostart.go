package cli

import (
	"context"
	"fmt"
	"os"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/platform/service"
)

// systemServiceClient is asked before a command starts the instance's
// daemon itself: when a system service of the instance exists, a second
// daemon must not start silently beside it. It returns a client of the
// service's daemon when the caller is root and that daemon runs for
// another user (its socket is known from that user's paths); an error
// saying what to do when the service is there but not answering; and
// neither when no system service concerns the caller, who may then start
// a daemon of their own.
func (c *cli) systemServiceClient(ctx context.Context) (*client.Client, error) {
	t := &serviceTarget{c: c}
	svc, st, err := t.systemService()
	if err != nil || svc == nil {
		return nil, err
	}
	me := currentUserName()
	if st.User != "" && st.User != me && os.Geteuid() != 0 {
		return nil, nil // another user's daemon; the caller's own instance is separate
	}
	where := fmt.Sprintf("the instance's daemon is the system service %s (%s)", svc.Name(), st.Definition)
	if !st.Active() {
		return nil, fmt.Errorf("%s, which is %s; start it with: sudo paddock service start --system (a daemon is not started beside it)", where, st)
	}
	if st.User == "" || st.User == me {
		return nil, fmt.Errorf("%s, which is %s but does not answer yet; see: paddock service status", where, st)
	}
	paths, err := t.pathsFor(st.User)
	if err != nil {
		return nil, fmt.Errorf("%s, running as %s: %w", where, st.User, err)
	}
	cl := client.NewUnix(paths["socket"])
	if err := cl.Connect(ctx, nil); err != nil {
		return nil, fmt.Errorf("%s, running as %s, and its socket %s: %w", where, st.User, paths["socket"], err)
	}
	return cl, nil
}

// systemService returns the instance's installed system service and its
// status, or nil.
func (t *serviceTarget) systemService() (*service.Service, service.Status, error) {
	spec, err := t.spec()
	if err != nil {
		return nil, service.Status{}, err
	}
	spec.Scope = service.System
	svc, err := service.New(spec)
	if err != nil {
		// No service manager this package drives: no system service.
		return nil, service.Status{}, nil
	}
	if !installed(svc) {
		if svc, err = t.packaged(); err != nil || svc == nil {
			return nil, service.Status{}, err
		}
	}
	st, err := svc.Status()
	if err != nil || !st.Installed() {
		return nil, st, err
	}
	return svc, st, nil
}
