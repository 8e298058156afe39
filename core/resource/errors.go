package resource

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Reason is the machine-readable cause of a failed request.
type Reason string

// The reasons of the API, each with its HTTP status in HTTPStatus.
const (
	ReasonNotFound      Reason = "NotFound"
	ReasonAlreadyExists Reason = "AlreadyExists"
	ReasonConflict      Reason = "Conflict"
	ReasonInvalid       Reason = "Invalid"
	ReasonForbidden     Reason = "Forbidden"
	ReasonGone          Reason = "Gone"
	ReasonTimeout       Reason = "Timeout"
	ReasonBadRequest    Reason = "BadRequest"
	ReasonUnauthorized  Reason = "Unauthorized"
	ReasonUnsupported   Reason = "UnsupportedMediaType"
	ReasonTooLarge      Reason = "RequestEntityTooLarge"
	ReasonInternal      Reason = "InternalError"
	// ReasonUnavailable: the daemon cannot serve this now (its database
	// is read-only, damaged or unreachable); the message says what to do.
	ReasonUnavailable Reason = "ServiceUnavailable"
	// ReasonInsufficientStorage: the disk holding the database is full.
	ReasonInsufficientStorage Reason = "InsufficientStorage"
)

// HTTPStatus returns the HTTP status code that carries r.
func (r Reason) HTTPStatus() int {
	switch r {
	case ReasonNotFound:
		return 404
	case ReasonAlreadyExists, ReasonConflict:
		return 409
	case ReasonInvalid:
		return 422
	case ReasonForbidden:
		return 403
	case ReasonGone:
		return 410
	case ReasonTimeout:
		return 504
	case ReasonBadRequest:
		return 400
	case ReasonUnauthorized:
		return 401
	case ReasonUnsupported:
		return 415
	case ReasonTooLarge:
		return 413
	case ReasonUnavailable:
		return 503
	case ReasonInsufficientStorage:
		return 507
	}
	return 500
}

// ReasonForStatus is the reason an HTTP status carries, the inverse of
// HTTPStatus: 409 is Conflict, and any status without a reason of its own
// is InternalError.
func ReasonForStatus(status int) Reason {
	switch status {
	case 404:
		return ReasonNotFound
	case 409:
		return ReasonConflict
	case 422:
		return ReasonInvalid
	case 403:
		return ReasonForbidden
	case 410:
		return ReasonGone
	case 504:
		return ReasonTimeout
	case 400:
		return ReasonBadRequest
	case 401:
		return ReasonUnauthorized
	case 415:
		return ReasonUnsupported
	case 413:
		return ReasonTooLarge
	case 503:
		return ReasonUnavailable
	case 507:
		return ReasonInsufficientStorage
	}
	return ReasonInternal
}

// FieldError names one invalid field, by its JSON path (spec.cpus).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (f FieldError) String() string { return f.Field + ": " + f.Message }

// Error is the error every layer returns for a request that failed for a
// reason the caller can act on. Message is a sentence for a person.
type Error struct {
	Reason  Reason
	Message string
	Fields  []FieldError
	// RetryAfter, when above zero, is how long a client should wait
	// before it tries again: the failure is expected to pass.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an Error with the given reason and message.
func Errorf(reason Reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// NotFound reports that key does not exist.
func NotFound(key Key) *Error {
	return Errorf(ReasonNotFound, "%s not found", Describe(key))
}

// Invalid reports fields of key that failed validation.
func Invalid(key Key, fields []FieldError) *Error {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	return &Error{
		Reason:  ReasonInvalid,
		Message: fmt.Sprintf("%s is invalid: %s", Describe(key), strings.Join(parts, "; ")),
		Fields:  fields,
	}
}

// ReasonOf returns err's reason, or "" when err is not an *Error.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// IsNotFound reports whether err says an object does not exist.
func IsNotFound(err error) bool { return ReasonOf(err) == ReasonNotFound }

// IsConflict reports whether err says a write lost a race.
func IsConflict(err error) bool { return ReasonOf(err) == ReasonConflict }

// Describe names an object for a person: `vm "dev" in namespace "default"`.
func Describe(k Key) string {
	s := fmt.Sprintf("%s %q", strings.ToLower(k.Kind), k.Name)
	if k.Namespace != "" {
		s += fmt.Sprintf(" in namespace %q", k.Namespace)
	}
	return s
}
