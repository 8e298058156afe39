//go:build linux

package cli

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// GET /metrics answers the Prometheus text format over the socket, and over
// TCP only with the token; its figures follow what the daemon did.
func TestMetricsCountWhatTheDaemonDid(t *testing.T) {
	e := newEnv(t, "default")
	port := freePort(t)
	d := e.serve("--listen", fmt.Sprintf("tcp://127.0.0.1:%d", port))

	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")
	e.mustRun("wait", "vm/dev", "--for=condition=Created", "--reason=Created", "--timeout=30s")
	route := "/api/v1alpha1/namespaces/{namespace}/configmaps"
	before := scrape(t, d.http, "http://paddock/metrics")
	if status, got, _ := call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"`+strings.Repeat("x", 1000)+`"}}`); status != 201 {
		t.Fatalf("create: %d %v", status, got)
	}
	if status, _, _ := call(t, d.http, "GET", cmPath+"/missing", "", ""); status != 404 {
		t.Fatalf("get missing: %d", status)
	}
	watch, err := d.http.Get(cmPath + "?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Body.Close()
	watch.Body.Read(make([]byte, 1)) // the stream is open

	m := scrape(t, d.http, "http://paddock/metrics")
	if got := value(m, "paddock_http_requests_total", "route", route, "method", "POST", "code", "201") - value(before, "paddock_http_requests_total", "route", route, "method", "POST", "code", "201"); got != 1 {
		t.Errorf("ConfigMap creates counted %v, want 1", got)
	}
	if got := value(m, "paddock_http_requests_total", "route", route+"/{name}", "method", "GET", "code", "404") - value(before, "paddock_http_requests_total", "route", route+"/{name}", "method", "GET", "code", "404"); got != 1 {
		t.Errorf("GETs of a missing ConfigMap counted %v, want 1", got)
	}
	if got := histogramCount(m, "paddock_http_request_duration_seconds", "route", route, "method", "POST") - histogramCount(before, "paddock_http_request_duration_seconds", "route", route, "method", "POST"); got != 1 {
		t.Errorf("ConfigMap create latencies observed %d, want 1", got)
	}
	if got := value(m, "paddock_api_watch_streams"); got != 1 {
		t.Errorf("watch streams %v, want 1", got)
	}
	if got := value(m, "paddock_store_watchers"); got < 2 { // the stream's and the controllers'
		t.Errorf("store watchers %v, want the stream's and the controllers'", got)
	}
	if got := value(m, "paddock_event_log_bytes"); got < 1000 {
		t.Errorf("event log bytes %v, want at least the ConfigMap's 1000", got)
	}
	if got := value(m, "paddock_event_log_events"); got < 3 {
		t.Errorf("event log events %v, want at least 3", got)
	}
	if got := value(m, "paddock_store_write_errors_total"); got != 0 {
		t.Errorf("store write errors %v, want 0", got)
	}
	if got := value(m, "paddock_vms", "phase", "Stopped"); got != 1 {
		t.Errorf("VMs Stopped %v, want 1 (%v)", got, m["paddock_vms"])
	}
	if got := histogramCount(m, "paddock_reconcile_duration_seconds", "controller", "vm"); got < 1 {
		t.Errorf("VM reconciles timed %d, want some", got)
	}
	if got := value(m, "paddock_reconciles_total", "controller", "vm", "result", "success"); got < 1 {
		t.Errorf("successful VM reconciles %v, want some", got)
	}

	// Over TCP, the token is needed as for the rest of the API.
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	if resp, err := http.Get(url); err != nil || resp.StatusCode != 401 {
		t.Fatalf("metrics without the token: %v %v, want 401", resp, err)
	}
	token, _ := os.ReadFile(e.path("token"))
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	if m := scrapeRequest(t, http.DefaultClient, req); value(m, "paddock_store_write_errors_total") != 0 {
		t.Fatal("metrics over TCP lack the store's")
	}
}

func scrape(t *testing.T, c *http.Client, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	return scrapeRequest(t, c, req)
}

func scrapeRequest(t *testing.T, c *http.Client, req *http.Request) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	m, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("metrics are not in the text format: %v", err)
	}
	return m
}

// find returns the metric of family name whose labels include the pairs
// in labels, or nil.
func find(m map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	fam := m[name]
	if fam == nil {
		return nil
	}
next:
	for _, metric := range fam.Metric {
		have := map[string]string{}
		for _, l := range metric.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return metric
	}
	return nil
}

// value returns a counter's or gauge's value, or -1 when there is none.
func value(m map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	metric := find(m, name, labels...)
	switch {
	case metric == nil:
		return -1
	case metric.Counter != nil:
		return metric.Counter.GetValue()
	case metric.Gauge != nil:
		return metric.Gauge.GetValue()
	}
	return -1
}

func histogramCount(m map[string]*dto.MetricFamily, name string, labels ...string) uint64 {
	if metric := find(m, name, labels...); metric != nil && metric.Histogram != nil {
		return metric.Histogram.GetSampleCount()
	}
	return 0
}
