package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

// The benchmarks run the real daemon and measure it from outside, as a
// client on the socket would. Figures: go test -run XXX -bench . ./cmd/paddock/cli

func benchEnv(b *testing.B) *env { return newEnv(b, "default") }

// startServe starts the daemon and returns it once /readyz answers.
func startServe(b *testing.B, e *env, socket string) (*exec.Cmd, *http.Client) {
	cmd := exec.Command(e.binary(), "serve")
	cmd.Env = e.environ()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := unixClient(socket)
	for {
		resp, err := c.Get("http://paddock/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return cmd, c
			}
		}
		time.Sleep(500 * time.Microsecond)
	}
}

func stopServe(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func socketOf(b *testing.B, e *env) string { return e.path("socket") }

func BenchmarkDaemonStartToReady(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	stopServe(func() *exec.Cmd { c, _ := startServe(b, e, socket); return c }()) // create the database once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, _ := startServe(b, e, socket)
		b.StopTimer()
		stopServe(cmd)
		b.StartTimer()
	}
}

// BenchmarkGetLatency times GETs from one client at a time, as a person or
// a controller issues them; BenchmarkGetOverSocket saturates the daemon.
func BenchmarkGetLatency(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"k":"v"}}`)
	b.ResetTimer()
	latencies := timeRequests(b, c, count(b.N, func(int) *http.Request { return get(cmPath + "/demo") }))
	b.StopTimer()
	reportPercentiles(b, latencies)
}

// timeRequests sends the requests next makes, one at a time, until next
// returns nil, and returns how long each took to answer in full. A failed
// request ends the loop.
func timeRequests(b *testing.B, c *http.Client, next func() *http.Request) []time.Duration {
	var latencies []time.Duration
	for req := next(); req != nil; req = next() {
		t0 := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			b.Error(err)
			break
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		latencies = append(latencies, time.Since(t0))
	}
	return latencies
}

// count makes n requests with build(0..n-1), then nil.
func count(n int, build func(i int) *http.Request) func() *http.Request {
	i := 0
	return func() *http.Request {
		if i == n {
			return nil
		}
		i++
		return build(i - 1)
	}
}

func get(url string) *http.Request {
	req, _ := http.NewRequest("GET", url, nil)
	return req
}

func mergePatch(url, body string) *http.Request {
	req, _ := http.NewRequest("PATCH", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	return req
}

func reportPercentiles(b *testing.B, latencies []time.Duration) {
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(latencies[len(latencies)/2]), "p50-ms")
	b.ReportMetric(ms(latencies[len(latencies)*99/100]), "p99-ms")
}

func BenchmarkGetOverSocket(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"},"data":{"k":"v"}}`)

	var mu sync.Mutex
	var latencies []time.Duration
	b.SetParallelism(4)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		local := timeRequests(b, unixClient(socket), func() *http.Request {
			if !pb.Next() {
				return nil
			}
			return get(cmPath + "/demo")
		})
		mu.Lock()
		latencies = append(latencies, local...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(len(latencies))/elapsed.Seconds(), "GET/s")
	reportPercentiles(b, latencies)
}

func BenchmarkWatchDelivery(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"w"}}`)

	resp, err := unixClient(socket).Get(cmPath + "?watch=true&resourceVersion=1")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan time.Time, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") && strings.Contains(sc.Text(), `"MODIFIED"`) {
				events <- time.Now()
			}
		}
	}()
	var total, worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		r, err := c.Do(mergePatch(cmPath+"/w", fmt.Sprintf(`{"data":{"i":"%d"}}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		// The event may arrive before the write's answer; time it from
		// the request, an upper bound of the delay after the commit.
		d := (<-events).Sub(t0)
		total += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/write+event")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
}

func BenchmarkList10000(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	fill(b, e.path("db"), 10000)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := c.Get("http://paddock/api/v1alpha1/configmaps")
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		b.SetBytes(n)
	}
}

// fill writes n ConfigMaps into the database at path through the store.
func fill(b testing.TB, path string, n int) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(path)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < n; i++ {
		cm := &resource.ConfigMap{
			TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
			Metadata: resource.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Labels: map[string]string{"bench": "yes"}},
			Data:     map[string]string{"key": "value"},
		}
		if _, err := st.Create(context.Background(), cm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIdle reports the idle daemon's resident memory and how often its
// threads wake up while nothing happens. The memory is split in two:
// RssAnon, the process's own (heap, stacks, the packages' variables), and
// RssFile, the pages of the binary it maps, which the page cache shares.
//
// It runs an installed copy of the binary (paddocktest.Installed): the
// linker writes its output through a shared mapping, and a daemon started
// from that freshly linked file maps about 4 MiB more of it than one
// started from the same bytes as a package manager writes them, or as
// they are read from disk after a reboot.
func BenchmarkIdle(b *testing.B) {
	e := benchEnv(b)
	e.bin = paddocktest.Installed(b, paddockBin)
	socket := socketOf(b, e)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"idle"}}`)
	c.CloseIdleConnections()
	const window = 30 * time.Second
	for i := 0; i < b.N; i++ {
		time.Sleep(time.Second) // let start-up work settle
		before := paddocktest.ContextSwitches(b, cmd.Process.Pid)
		time.Sleep(window)
		after := paddocktest.ContextSwitches(b, cmd.Process.Pid)
		b.ReportMetric(float64(after-before)/window.Seconds(), "wakeups/s")
		pid := cmd.Process.Pid
		b.ReportMetric(float64(paddocktest.StatusKiB(b, pid, "VmRSS"))/1024, "RSS-MiB")
		b.ReportMetric(float64(paddocktest.StatusKiB(b, pid, "RssAnon"))/1024, "anon-MiB")
		b.ReportMetric(float64(paddocktest.StatusKiB(b, pid, "RssFile"))/1024, "file-MiB")
	}
}

func post(b *testing.B, c *http.Client, url, body string) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		b.Fatalf("POST %s: %s", url, resp.Status)
	}
}

// BenchmarkWrites8Clients has eight clients merge-patch their own
// ConfigMap as fast as the daemon answers, while a ninth GETs: it reports
// the write rate, the writes' p99 and the GETs' p99 under that load.
func BenchmarkWrites8Clients(b *testing.B) {
	e := benchEnv(b)
	socket := socketOf(b, e)
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	const clients = 8
	for i := 0; i < clients; i++ {
		post(b, c, cmPath, fmt.Sprintf(`{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"w%d"}}`, i))
	}
	var mu sync.Mutex
	var writes, gets []time.Duration
	stop := make(chan struct{})
	getDone := make(chan struct{})
	go func() {
		defer close(getDone)
		gets = timeRequests(b, unixClient(socket), func() *http.Request {
			select {
			case <-stop:
				return nil
			default:
				return get(cmPath + "/w0")
			}
		})
	}()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	per := max(b.N/clients, 1)
	for i := 0; i < clients; i++ {
		wg.Go(func() {
			local := timeRequests(b, unixClient(socket), count(per, func(j int) *http.Request {
				return mergePatch(fmt.Sprintf("%s/w%d", cmPath, i), fmt.Sprintf(`{"data":{"j":"%d"}}`, j))
			}))
			mu.Lock()
			writes = append(writes, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(stop)
	<-getDone
	b.ReportMetric(float64(len(writes))/elapsed.Seconds(), "writes/s")
	reportPercentiles(b, writes)
	if len(gets) > 0 {
		sort.Slice(gets, func(i, j int) bool { return gets[i] < gets[j] })
		b.ReportMetric(float64(gets[len(gets)*99/100].Microseconds())/1000, "GET-p99-ms")
	}
}
