package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/logging"
)

// A handler that panics (a fake: no real handler is known to panic any
// more) answers a problem+json 500 whose request id the log carries.
func TestHandlerPanicBecomesProblemWithRequestID(t *testing.T) {
	var logs bytes.Buffer
	log := logging.New(&logs, slog.LevelInfo)
	panicking := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("interface conversion") })
	h := withRequestID(newRequestIDs(), recoverPanics(log, panicking))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1alpha1/namespaces/default/configmaps", strings.NewReader("{}")))
	if rec.Code != 500 || rec.Header().Get("Content-Type") != wire.ProblemType {
		t.Fatalf("got %d %q, want a problem+json 500", rec.Code, rec.Header().Get("Content-Type"))
	}
	var p wire.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	id := rec.Header().Get(RequestIDHeader)
	if id == "" || !strings.Contains(p.Detail, id) {
		t.Fatalf("the problem does not name the request id %q: %+v", id, p)
	}
	if !strings.Contains(logs.String(), "request="+id) || !strings.Contains(logs.String(), "interface conversion") {
		t.Fatalf("the log lacks the request id or the panic: %s", logs.String())
	}
}
