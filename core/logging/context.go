package logging

import (
	"context"
	"log/slog"
)

type attrsKey struct{}

// With returns ctx carrying attrs: every line logged with ctx (InfoContext,
// Log, ...) by a logger from New carries them, such as the id of the
// request the line is about.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	if have, ok := ctx.Value(attrsKey{}).([]slog.Attr); ok {
		attrs = append(append([]slog.Attr(nil), have...), attrs...)
	}
	return context.WithValue(ctx, attrsKey{}, attrs)
}

// contextHandler adds the attributes of a line's context to it.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if attrs, ok := ctx.Value(attrsKey{}).([]slog.Attr); ok {
		r = r.Clone()
		r.AddAttrs(attrs...)
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
