// Package metrics owns the daemon's Prometheus instruments: API requests
// by route, method and code with their latency, controller reconciles by
// result with their duration, and gauges and counters read from their
// owners when scraped (watchers, the event log's size, store write errors,
// VMs by phase). Each daemon has its own registry, which the API serves
// in the Prometheus text format; nothing is registered globally. A nil
// *Metrics records nothing, so packages take one without checking.
package metrics
