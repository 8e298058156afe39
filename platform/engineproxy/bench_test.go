//go:build !windows

package engineproxy

import (
	"io"
	"syscall"
	"testing"
	"time"
)

// The proxy's own cost, without a VM: a ping's round trip and a 1 GiB
// load, straight to the engine's socket, through the proxy, and through a
// Stream, the byte relay of containerd's socket (the least a process in
// the middle costs; it cannot see requests, so it could not refuse a
// bind).
//
//	go test -run XXX -bench . ./platform/engineproxy
func BenchmarkPing(b *testing.B) {
	for name, socket := range benchSockets(b) {
		b.Run(name, func(b *testing.B) {
			c := client(socket)
			for b.Loop() {
				resp, err := c.Get("http://docker/_ping")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

func BenchmarkLoad1GiB(b *testing.B) {
	const size = 1 << 30
	for name, socket := range benchSockets(b) {
		b.Run(name, func(b *testing.B) {
			c := client(socket)
			b.SetBytes(size)
			defer reportCPU(b)()
			for b.Loop() {
				resp, err := c.Post("http://docker/v1.41/images/load", "application/x-tar", io.NopCloser(io.LimitReader(zeros{}, size)))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// reportCPU, deferred, reports the CPU time the process (client, proxy
// and engine together) spent per operation: on a loaded host the wall time
// varies with what else runs, the CPU time much less, and it is what the
// proxy takes from the rest of the machine.
func reportCPU(b *testing.B) func() {
	before := cpuTime()
	return func() { b.ReportMetric((cpuTime()-before).Seconds()/float64(b.N), "cpu-s/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSockets are an engine's socket, the proxy's in front of it, and a
// Stream's (the byte relay that serves containerd's socket).
func benchSockets(b *testing.B) map[string]string {
	p := &Proxy{}
	proxy, _ := setup(b, p)
	dir := shortDir(b)
	relay, _ := serveStream(b, &Stream{Engine: p.Engine}, dir)
	return map[string]string{"direct": p.Engine, "proxy": proxy, "stream": relay}
}
