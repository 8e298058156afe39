package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/platform/service"
)

// serviceReport is the service manager's status combined with a health
// check of the daemon's API.
type serviceReport struct {
	service.Status
	// APIReady is true when the daemon answered /readyz on its socket.
	APIReady bool `json:"apiReady"`
	// APIError says why the API is not ready, while the service runs.
	APIError string `json:"apiError,omitempty"`
	Socket   string `json:"socket,omitempty"`
}

func (r serviceReport) String() string {
	out := fmt.Sprintf("%s (%s service): %s", r.Name, r.Scope, r.Status)
	if r.Definition != "" {
		out = fmt.Sprintf("%s (%s service %s): %s", r.Name, r.Scope, r.Definition, r.Status)
	}
	switch {
	case r.APIReady:
		out += ", API ready"
	case r.APIError != "":
		out += ", API not ready: " + r.APIError
	}
	return out
}

func newServiceStatusCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the service is installed and running and its API ready",
		Long: `Say whether the instance's service is installed, whether the service manager
runs it (with the daemon's pid), and whether the daemon's API answers on its
socket: "running, pid N, API ready". A service that crashed and waits to be
restarted, or that failed, says so with the manager's reason.

The exit code is 0 whenever the status could be found, whatever it is; use
-o json in scripts.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("unknown output format %q: use text or json", output)
			}
			svc, err := t.open(cmd)
			if err != nil {
				return err
			}
			r, err := t.report(cmd.Context(), svc)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			fmt.Fprintln(c.stdout, r)
			return nil
		},
	}
	t.addFlags(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// report asks the service manager and, when the daemon runs, its API.
func (t *serviceTarget) report(ctx context.Context, svc *service.Service) (serviceReport, error) {
	st, err := svc.Status()
	if err != nil {
		return serviceReport{}, err
	}
	r := serviceReport{Status: st}
	if st.State != service.Running {
		return r, nil
	}
	paths, err := t.pathsFor(st.User)
	if err != nil {
		r.APIError = err.Error()
		return r, nil
	}
	r.Socket = paths["socket"]
	if err := probeReady(ctx, r.Socket); err != nil {
		r.APIError = err.Error()
	} else {
		r.APIReady = true
	}
	return r, nil
}

// probeTimeout bounds one health check of the API.
const probeTimeout = 2 * time.Second

// probeReady asks the daemon's /readyz over its Unix socket.
func probeReady(ctx context.Context, socket string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cl := client.NewUnix(socket)
	defer cl.CloseIdleConnections()
	return cl.Ready(ctx)
}

// pollInterval is how often a wait checks the service again.
const pollInterval = 200 * time.Millisecond

// waitReady waits until the service runs and its API is ready, failing
// early when the service manager reports it failed; timeout 0 waits
// forever.
func (t *serviceTarget) waitReady(ctx context.Context, svc *service.Service, timeout time.Duration) (serviceReport, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	for {
		r, err := t.report(ctx, svc)
		if err != nil {
			return r, err
		}
		switch {
		case r.APIReady:
			return r, nil
		case r.State == service.Failed || r.State == service.Stopped || r.State == service.NotInstalled:
			return r, fmt.Errorf("the service did not come up: %s; see: paddock service logs", r)
		case r.State == service.Restarting:
			// Crashed at start; systemd will try again, and the
			// daemon's own words say why it will fail again.
			return r, fmt.Errorf("the service crashed while starting: %s; see: paddock service logs", r)
		}
		select {
		case <-ctx.Done():
			return r, withCode(exitTimeout, fmt.Errorf("the API was not ready within %s: %s; see: paddock service logs", timeout, r))
		case <-time.After(pollInterval):
		}
	}
}
