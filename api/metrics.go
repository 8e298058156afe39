package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"paddock.dev/paddock/core/metrics"
)

// registerMetrics serves GET /metrics in the Prometheus text format, behind
// the same doors as the rest of the API, and counts the watch streams.
func (s *Server) registerMetrics(m *metrics.Metrics) {
	if m == nil {
		return
	}
	s.router.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(m.Gatherer(), promhttp.HandlerOpts{}))
	m.Gauge("api_watch_streams", "Watch streams the API is serving.", func() float64 { return float64(s.streaming.Load()) })
}

// observeRequests records each request's route pattern, method, status
// code and duration in m. It gives the router a route context of its own
// to read the matched pattern from once the router is done.
func observeRequests(m *metrics.Metrics, next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		rctx := chi.NewRouteContext()
		rec := newAnswerWriter(w)
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx)))
		m.ObserveRequest(rctx.RoutePattern(), r.Method, rec.code, time.Since(began))
	})
}
