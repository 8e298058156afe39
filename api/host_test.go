package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A daemon wired without a host check says so, as a problem, and the
// OpenAPI document describes the endpoint either way.
func TestHostWithoutACheck(t *testing.T) {
	h := newServer(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1alpha1/host", nil))
	if rec.Code != http.StatusNotImplemented || rec.Header().Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(rec.Body.String(), "does not check its host") {
		t.Errorf("GET /host = %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if body := rec.Body.String(); !strings.Contains(body, `"/api/v1alpha1/host"`) || !strings.Contains(body, "HostReport") {
		t.Errorf("the OpenAPI document does not describe GET /host")
	}
}
