package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// HostCheck checks the daemon's host for what the App needs, as paddock
// doctor does.
type HostCheck func(context.Context) resource.HostReport

type hostOutput struct {
	Body resource.HostReport
}

// registerHost serves GET /host from check; without one it answers that
// this daemon does not check its host.
func (s *Server) registerHost(check HostCheck) {
	huma.Register(s.api, huma.Operation{
		OperationID: "get-host",
		Method:      http.MethodGet,
		Path:        wire.Base + "/host",
		Summary:     "What the daemon's host lacks to run the App, each with the command that fixes it",
		Description: "The same report as paddock doctor, checked afresh on each request (on Linux that " +
			"includes running a test guest under KVM, so it can take a few seconds). " +
			"ok is false when a check failed; warnings leave it true.",
		Tags:   []string{"health"},
		Errors: []int{http.StatusNotImplemented},
	}, func(ctx context.Context, _ *struct{}) (*hostOutput, error) {
		if check == nil {
			p := newProblem(resource.ReasonInternal, "this daemon does not check its host")
			p.Status, p.Title = http.StatusNotImplemented, http.StatusText(http.StatusNotImplemented)
			return nil, p
		}
		return &hostOutput{Body: check(ctx)}, nil
	})
}
