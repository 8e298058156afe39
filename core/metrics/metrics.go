package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// namespace prefixes every metric's name.
const namespace = "paddock"

// Metrics is one daemon's instruments and the registry that serves them.
type Metrics struct {
	reg              *prometheus.Registry
	requests         *prometheus.CounterVec
	requestSeconds   *prometheus.HistogramVec
	reconciles       *prometheus.CounterVec
	reconcileSeconds *prometheus.HistogramVec
}

// New returns a daemon's instruments, with the Go runtime's and the
// process's own metrics beside them.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "API requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer an API request, by route pattern and method; a watch counts until its stream ends.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "reconciles_total",
			Help: "Reconciles run, by controller and result (success, requeue, error, terminal, panic).",
		}, []string{"controller", "result"}),
		reconcileSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "reconcile_duration_seconds",
			Help:    "Time a reconcile took, by controller.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300},
		}, []string{"controller"}),
	}
	m.reg.MustRegister(m.requests, m.requestSeconds, m.reconciles, m.reconcileSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Gatherer gathers every metric, for the API to serve.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// ObserveRequest records an answered API request; route is the pattern it
// matched ("" for none), not its path, so that names do not make series.
func (m *Metrics) ObserveRequest(route, method string, code int, took time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.requestSeconds.WithLabelValues(route, method).Observe(took.Seconds())
}

// ObserveReconcile records a finished reconcile of controller.
func (m *Metrics) ObserveReconcile(controller, result string, took time.Duration) {
	if m == nil {
		return
	}
	m.reconciles.WithLabelValues(controller, result).Inc()
	m.reconcileSeconds.WithLabelValues(controller).Observe(took.Seconds())
}

// Gauge registers a gauge read from value at each scrape.
func (m *Metrics) Gauge(name, help string, value func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, value))
}

// Counter registers a counter read from value at each scrape.
func (m *Metrics) Counter(name, help string, value func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, value))
}

// GaugeByLabel registers a gauge with one label whose values and
// readings values returns at each scrape. A scrape whose values fails
// reports the error instead of the gauge.
func (m *Metrics) GaugeByLabel(name, help, label string, values func() (map[string]float64, error)) {
	m.reg.MustRegister(&labelled{
		desc:   prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, []string{label}, nil),
		values: values,
	})
}

// labelled is a collector of one labelled gauge read at scrape time.
type labelled struct {
	desc   *prometheus.Desc
	values func() (map[string]float64, error)
}

func (c *labelled) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *labelled) Collect(ch chan<- prometheus.Metric) {
	values, err := c.values()
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for label, v := range values {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, label)
	}
}

// Gauges registers gauges that values reads together at each scrape, in
// the order of names and helps. A scrape whose values fails reports the
// error instead of the gauges.
func (m *Metrics) Gauges(names, helps []string, values func() ([]float64, error)) {
	c := &together{values: values}
	for i, name := range names {
		c.descs = append(c.descs, prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), helps[i], nil, nil))
	}
	m.reg.MustRegister(c)
}

// together is a collector of gauges read at once at scrape time.
type together struct {
	descs  []*prometheus.Desc
	values func() ([]float64, error)
}

func (c *together) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *together) Collect(ch chan<- prometheus.Metric) {
	values, err := c.values()
	for i, d := range c.descs {
		if err != nil {
			ch <- prometheus.NewInvalidMetric(d, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, values[i])
	}
}
