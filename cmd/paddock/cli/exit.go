package cli

import (
	"errors"
	"fmt"
	"io"

	"paddock.dev/paddock/core/resource"
)

// Exit codes, as documented in the README.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitRejected = 3
	exitTimeout  = 4
)

// codedError carries the exit code an error should end the process with.
type codedError struct {
	code int
	err  error
	// quiet is set when the command already said everything on stdout.
	quiet bool
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &codedError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// quietExit ends a command with code and no message: what it printed
// already says why.
func quietExit(code int) error {
	return &codedError{code: code, err: fmt.Errorf("exit code %d", code), quiet: true}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

// exitCode reports the code err should end the process with, printing it
// for the user first.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ce *codedError
	if errors.As(err, &ce) && ce.quiet {
		return ce.code
	}
	fmt.Fprintf(stderr, "paddock: %v\n", err)
	if ce != nil {
		return ce.code
	}
	switch resource.ReasonOf(err) {
	case resource.ReasonInvalid, resource.ReasonForbidden:
		return exitRejected
	case resource.ReasonTimeout:
		return exitTimeout
	}
	return exitError
}
