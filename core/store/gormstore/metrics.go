package gormstore

import (
	"context"
	"time"

	"paddock.dev/paddock/core/metrics"
)

// eventLogSize is the event log's length and the bytes of the objects it
// holds.
type eventLogSize struct {
	Events, Bytes int64
}

// EventLogSize measures the event log: how many events it keeps and the
// bytes of their objects.
func (s *DB) EventLogSize(ctx context.Context) (events, bytes int64, err error) {
	var size eventLogSize
	err = s.db.WithContext(ctx).Model(&eventRow{}).
		Select("COUNT(*) AS events, COALESCE(SUM(LENGTH(body)), 0) AS bytes").Scan(&size).Error
	return size.Events, size.Bytes, err
}

// Instrument registers the store's metrics with m: watchers, the event
// log's size, and the writes that failed.
func (s *DB) Instrument(m *metrics.Metrics) {
	m.Gauge("store_watchers", "Watches open on the store, the API's streams and the controllers' own.",
		func() float64 { return float64(s.hub.Len()) })
	m.Counter("store_write_errors_total", "Writes the database failed (a full disk, a read-only or damaged file, a lost server).",
		func() float64 { return float64(s.writeErrors.Load()) })
	m.Gauges([]string{"event_log_events", "event_log_bytes"},
		[]string{"Events the log keeps for watches to resume from.", "Bytes of the objects the event log holds."},
		func() ([]float64, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			events, bytes, err := s.EventLogSize(ctx)
			return []float64{float64(events), float64(bytes)}, err
		})
}
