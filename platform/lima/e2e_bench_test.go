//go:build linux

package lima_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock.dev/paddock/platform/lima"
)

// stopGrace bounds a graceful stop in the benchmarks.
const stopGrace = 2 * time.Minute

// A graceful stop of one running VM, and of two in parallel: two/one near
// 1 says that StopAll stops them side by side. Each VM gets one virtual
// CPU, so that the two guests' shutdowns fit on a 2-core host: under TCG
// a guest's shutdown is CPU-bound (about 2.5 CPU-seconds with 2 vCPUs),
// and two such guests share the host's cores, however parallel the stops
// (two/one was 1.74 with 2 vCPUs each on a 2-core host).
//
//	PADDOCK_E2E=1 go test -run '^$' -bench StopParallel ./platform/lima
func BenchmarkStopParallel(b *testing.B) {
	e := setupE2E(b)
	d := e.driver
	ctx := context.Background()
	names := []string{"stopa", "stopb"}
	tmpl := strings.Replace(string(e.template(b, "")), "\ncpus: 2\n", "\ncpus: 1\n", 1)
	for _, n := range names {
		createCommitted(b, d, n, []byte(tmpl))
	}
	var one, two time.Duration
	for range b.N {
		startAll(b, d, names)
		t0 := time.Now()
		if err := d.Stop(ctx, names[0], stopGrace); err != nil {
			b.Fatal(err)
		}
		one += time.Since(t0)

		startAll(b, d, names[:1])
		t0 = time.Now()
		if err := d.StopAll(ctx, names, stopGrace); err != nil {
			b.Fatal(err)
		}
		two += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(one.Seconds()/n, "s/stop-one")
	b.ReportMetric(two.Seconds()/n, "s/stop-two")
	b.ReportMetric(two.Seconds()/one.Seconds(), "two/one")
}

func createCommitted(b *testing.B, d *lima.Driver, name string, tmpl []byte) {
	b.Helper()
	ctx := context.Background()
	if err := d.Create(ctx, name, tmpl); err != nil {
		b.Fatal(err)
	}
	if err := d.Commit(name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := d.Delete(ctx, name); err != nil {
			b.Error(err)
		}
	})
}

// startAll starts the instances in parallel and waits until all run.
func startAll(b *testing.B, d *lima.Driver, names []string) {
	b.Helper()
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*bootTimeout)
			defer cancel()
			if errs[i] = d.Start(ctx, n); errs[i] == nil {
				errs[i] = d.WaitRunning(ctx, n)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
