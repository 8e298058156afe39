// Package logging sets up Paddock's log/slog logger and owns the one list of
// log levels that every front door accepts.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// EnvLevel is the environment variable that sets the log level.
const EnvLevel = "PADDOCK_LOG_LEVEL"

// Levels beyond slog's four. Trace sits below debug and fatal above error,
// the places logrus gives them, so that a level named by a Lima user means
// the same here.
const (
	LevelTrace = slog.Level(-8)
	LevelFatal = slog.Level(12)
)

// Names lists every accepted level name, for help texts and completion.
var Names = []string{"trace", "debug", "info", "warn", "warning", "error", "fatal"}

// ParseLevel accepts every name in Names, in any case.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace":
		return LevelTrace, nil
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	case "fatal":
		return LevelFatal, nil
	}
	return 0, fmt.Errorf("unknown log level %q: use one of %s", s, strings.Join(Names, ", "))
}

// New returns a text logger writing to w at level, naming the trace and
// fatal levels by their names rather than as offsets of debug and error.
// Every line logged with a context carries the attributes With put there.
func New(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(contextHandler{slog.NewTextHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key != slog.LevelKey || len(groups) > 0 {
				return a
			}
			switch a.Value.Any().(slog.Level) {
			case LevelTrace:
				a.Value = slog.StringValue("TRACE")
			case LevelFatal:
				a.Value = slog.StringValue("FATAL")
			}
			return a
		},
	})})
}
