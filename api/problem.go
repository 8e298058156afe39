package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// problem is the error every handler returns to huma; it is written as
// application/problem+json, with headers when it has any.
type problem struct {
	wire.Problem
	headers http.Header
}

// GetHeaders makes huma send the problem's headers (huma.HeadersError).
func (p *problem) GetHeaders() http.Header { return p.headers }

func (p *problem) Error() string  { return p.Detail }
func (p *problem) GetStatus() int { return p.Status }

// ContentType makes huma label JSON error bodies as problem+json.
func (p *problem) ContentType(ct string) string {
	if ct == "application/json" {
		return wire.ProblemType
	}
	return ct
}

func init() {
	// Errors huma raises itself (validation, body limits, content types)
	// take the same shape as ours, with a reason and a full sentence.
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		p := newProblem(resource.ReasonForStatus(status), msg)
		// A status without a reason of its own (408, say) keeps its code.
		p.Status, p.Title = status, http.StatusText(status)
		var parts []string
		for _, err := range errs {
			if err == nil {
				continue
			}
			f := wire.ProblemField{Message: err.Error()}
			var d huma.ErrorDetailer
			if errors.As(err, &d) {
				detail := d.ErrorDetail()
				f = wire.ProblemField{Message: detail.Message, Location: detail.Location, Value: scalar(detail.Value)}
			}
			p.Errors = append(p.Errors, f)
			part := f.Message
			if f.Location != "" {
				part = f.Location + ": " + part
			}
			parts = append(parts, part)
		}
		if len(parts) > 0 {
			p.Detail = strings.TrimSuffix(msg, ".") + ": " + strings.Join(parts, "; ")
		}
		return p
	}
}

func newProblem(reason resource.Reason, detail string) *problem {
	status := reason.HTTPStatus()
	return &problem{Problem: wire.Problem{Title: http.StatusText(status), Status: status, Reason: reason, Detail: detail}}
}

// toProblem turns an error from the core into its HTTP form. A request
// whose own deadline (a wait's ?timeout=) cut its work short timed out.
// Other errors without a reason are internal: the person sees a sentence,
// the log the cause.
func toProblem(err error) error {
	var e *resource.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, context.DeadlineExceeded):
		return newProblem(resource.ReasonTimeout, "the request timed out: "+err.Error())
	default:
		return newProblem(resource.ReasonInternal, "internal error: "+err.Error())
	}
	p := newProblem(e.Reason, e.Message)
	if e.RetryAfter > 0 {
		p.headers = http.Header{"Retry-After": {strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds())))}}
	}
	for _, f := range e.Fields {
		p.Errors = append(p.Errors, wire.ProblemField{Message: f.Message, Location: "body." + f.Field})
	}
	return p
}

// scalar returns v when it is a single value worth echoing back, and nil
// for objects and arrays, which would repeat the request at length.
func scalar(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		return nil
	}
	return v
}
