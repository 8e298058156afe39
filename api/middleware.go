package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"sync/atomic"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/core/resource"
)

// RequestIDHeader carries the id the daemon gives each request; its log
// lines about the request carry the same id.
const RequestIDHeader = "X-Request-Id"

type requestIDKey struct{}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// requestIDs makes request ids: a random prefix per daemon and a counter,
// unique across restarts without costing a random read per request.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	raw := make([]byte, 4)
	rand.Read(raw)
	return &requestIDs{prefix: hex.EncodeToString(raw)}
}

func (g *requestIDs) next() string { return fmt.Sprintf("%s-%d", g.prefix, g.n.Add(1)) }

// withRequestID gives each request an id, in its context, in the
// X-Request-Id response header, and in every line logged with the
// request's context (as request=ID).
func withRequestID(ids *requestIDs, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.next()
		w.Header().Set(RequestIDHeader, id)
		ctx := logging.With(context.WithValue(r.Context(), requestIDKey{}, id), slog.String("request", id))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// recoverPanics turns a handler's panic into a problem+json 500 naming the
// request id, and logs the panic and its stack with the same id. A panic
// after the answer began cannot change it: the connection is dropped.
func recoverPanics(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newAnswerWriter(w)
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			id := RequestID(r.Context())
			log.ErrorContext(r.Context(), "request handler panicked", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if rec.began {
				panic(http.ErrAbortHandler)
			}
			writeProblem(w, newProblem(resource.ReasonInternal, fmt.Sprintf(
				"internal error: the daemon failed on this request; its log has the details under request id %s", id)))
		}()
		next.ServeHTTP(rec, r)
	})
}

// answerWriter notes whether the answer has begun, and the status code it
// began with: the panic handler needs the one, the request metrics the other.
type answerWriter struct {
	http.ResponseWriter
	code  int
	began bool
}

func newAnswerWriter(w http.ResponseWriter) *answerWriter {
	return &answerWriter{ResponseWriter: w, code: http.StatusOK}
}

func (w *answerWriter) WriteHeader(code int) {
	if !w.began {
		w.code, w.began = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.began = true
	return w.ResponseWriter.Write(b)
}

// Flush sends what the handler wrote so far (watch streams).
func (w *answerWriter) Flush() {
	w.began = true
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection (flushes and
// deadlines of watch streams).
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// strictQuery refuses a query string that does not parse: Go's parser drops
// a malformed pair silently, and a dropped labelSelector lists everything.
func strictQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			var esc url.EscapeError
			detail := fmt.Sprintf("the query string cannot be read: %v", err)
			if errors.As(err, &esc) {
				detail = fmt.Sprintf("the query string has a malformed %%-escape %q: write a literal %% as %%25", string(esc))
			}
			writeProblem(w, newProblem(resource.ReasonBadRequest, detail))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// notFound and methodNotAllowed answer in problem+json like every other
// error of the API.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, newProblem(resource.ReasonNotFound,
		fmt.Sprintf("no such path: %s (the API's paths are in its OpenAPI document, GET /openapi.json)", r.URL.Path)))
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	p := newProblem(resource.ReasonBadRequest, fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path))
	p.Status, p.Title = http.StatusMethodNotAllowed, http.StatusText(http.StatusMethodNotAllowed)
	writeProblem(w, p)
}
