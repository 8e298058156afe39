package lima

import (
	"context"
	"io"
	"log/slog"

	"github.com/sirupsen/logrus"

	"paddock.dev/paddock/core/logging"
)

// RouteLogrus sends everything Lima logs through logrus's standard logger to
// logger instead, at the matching level (trace, debug, info, warn, error;
// fatal and panic become logging.LevelFatal), with logrus fields as
// attributes. logrus is set to the most verbose level logger accepts, so
// nothing the handler would keep is dropped early. It affects the whole
// process: Lima logs only through the standard logger.
func RouteLogrus(logger *slog.Logger) {
	std := logrus.StandardLogger()
	std.SetOutput(io.Discard)
	std.SetLevel(logrusLevelFor(logger))
	std.ReplaceHooks(logrus.LevelHooks{})
	std.AddHook(&slogHook{logger: logger})
}

// logrusLevelFor returns the most verbose logrus level whose slog
// counterpart logger has enabled.
func logrusLevelFor(logger *slog.Logger) logrus.Level {
	for _, l := range []logrus.Level{logrus.TraceLevel, logrus.DebugLevel, logrus.InfoLevel, logrus.WarnLevel, logrus.ErrorLevel} {
		if logger.Enabled(context.Background(), slogLevel(l)) {
			return l
		}
	}
	return logrus.FatalLevel
}

func slogLevel(l logrus.Level) slog.Level {
	switch l {
	case logrus.TraceLevel:
		return logging.LevelTrace
	case logrus.DebugLevel:
		return slog.LevelDebug
	case logrus.InfoLevel:
		return slog.LevelInfo
	case logrus.WarnLevel:
		return slog.LevelWarn
	case logrus.ErrorLevel:
		return slog.LevelError
	}
	return logging.LevelFatal
}

type slogHook struct{ logger *slog.Logger }

func (h *slogHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h *slogHook) Fire(e *logrus.Entry) error {
	attrs := make([]slog.Attr, 0, len(e.Data)+1)
	if _, ok := e.Data["source"]; !ok {
		attrs = append(attrs, slog.String("source", "lima"))
	}
	for k, v := range e.Data {
		if err, ok := v.(error); ok {
			v = err.Error()
		}
		attrs = append(attrs, slog.Any(k, v))
	}
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	h.logger.LogAttrs(ctx, slogLevel(e.Level), e.Message, attrs...)
	return nil
}
