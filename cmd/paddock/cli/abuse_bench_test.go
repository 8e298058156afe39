//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
)

// The figures of a daemon under abuse: a watch of 100,000 objects, a
// watcher that never reads while large objects are written, and 20,000
// idle connections that never authenticate. Each runs once per round
// (CI: -benchtime 1s runs one round of each, about 30 s, 40 s and 15 s).

// BenchmarkWatch100000 watches 100,000 ConfigMaps from the start: it
// reports the objects delivered, how fast, the daemon's peak RSS while
// it served them, and its RSS once idle again.
func BenchmarkWatch100000(b *testing.B) {
	const n = 100_000
	e := benchEnv(b)
	fill(b, e.path("db"), n)
	cmd, c := startServe(b, e, e.path("socket"))
	defer stopServe(cmd)
	c.CloseIdleConnections()
	time.Sleep(time.Second) // start-up settles
	idleBefore := paddocktest.StatusKiB(b, cmd.Process.Pid, "VmRSS")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		resp, err := unixClient(e.path("socket")).Get("http://paddock/api/v1alpha1/configmaps?watch=true")
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		added := 0
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, `"type":"ADDED"`) {
				added++
			}
			if strings.Contains(line, `"type":"BOOKMARK"`) {
				break
			}
		}
		took := time.Since(t0)
		resp.Body.Close()
		b.StopTimer()
		b.ReportMetric(float64(added), "objects")
		b.ReportMetric(float64(added)/took.Seconds(), "objects/s")
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "VmHWM"))/1024, "peak-RSS-MiB")
		time.Sleep(5 * time.Second) // the runtime hands memory back
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "VmRSS"))/1024, "idle-after-RSS-MiB")
		// Of it, the heap and stacks (anonymous) apart from the pages of the
		// binary and of the files it maps.
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "RssAnon"))/1024, "idle-after-anon-MiB")
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "RssFile"))/1024, "idle-after-file-MiB")
		b.ReportMetric(float64(idleBefore)/1024, "idle-before-RSS-MiB")
		if added != n {
			b.Fatalf("the watch delivered %d objects, want %d", added, n)
		}
		b.StartTimer()
	}
}

// BenchmarkWatch100000WhileWriting watches 100,000 ConfigMaps from the
// start while 8 clients patch random ones of them as fast as the daemon
// answers: every object must arrive once as ADDED, with no ERROR (the
// listing was once cut within 0.1 s). It reports how long the listing
// took, the writes meanwhile, and the daemon's RSS: settled before, and
// its peak, which the watch's queue bounds (store.MaxPendingBytes).
func BenchmarkWatch100000WhileWriting(b *testing.B) {
	const n, writers = 100_000, 8
	e := benchEnv(b)
	fill(b, e.path("db"), n)
	cmd, c := startServe(b, e, e.path("socket"))
	defer stopServe(cmd)
	c.CloseIdleConnections()
	time.Sleep(2 * time.Second) // start-up settles
	settled := paddocktest.StatusKiB(b, cmd.Process.Pid, "VmRSS")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The peak is the watch's, not start-up's: 5 resets VmHWM.
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", cmd.Process.Pid), []byte("5"), 0); err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		var writes atomic.Int64
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				c := unixClient(e.path("socket"))
				r := rand.New(rand.NewPCG(uint64(w), uint64(i)))
				for {
					select {
					case <-stop:
						return
					default:
					}
					resp, err := c.Do(mergePatch(fmt.Sprintf("%s/cm-%05d", cmPath, r.IntN(n)), fmt.Sprintf(`{"data":{"n":"%d"}}`, r.Int())))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					writes.Add(1)
				}
			})
		}
		t0 := time.Now()
		resp, err := unixClient(e.path("socket")).Get("http://paddock/api/v1alpha1/configmaps?watch=true")
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		added := 0
		for added < n && sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, `"type":"ADDED"`) {
				added++
			}
			if strings.Contains(line, `"type":"ERROR"`) {
				b.Fatalf("the watch ended after %d objects: %s", added, line)
			}
		}
		took := time.Since(t0)
		close(stop)
		wg.Wait()
		resp.Body.Close()
		b.StopTimer()
		if added != n {
			b.Fatalf("the watch delivered %d objects, want %d", added, n)
		}
		b.ReportMetric(took.Seconds(), "listing-s")
		b.ReportMetric(float64(writes.Load())/took.Seconds(), "writes/s")
		b.ReportMetric(float64(settled)/1024, "settled-RSS-MiB")
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "VmHWM"))/1024, "peak-RSS-MiB")
		b.StartTimer()
	}
}

// BenchmarkStalledWatcher writes 300 objects of 900 KB while one watcher
// never reads: it reports the daemon's peak RSS and the write rate.
func BenchmarkStalledWatcher(b *testing.B) {
	const writes, size = 300, 900_000
	e := benchEnv(b)
	socket := e.path("socket")
	cmd, c := startServe(b, e, socket)
	defer stopServe(cmd)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"big"}}`)
	stalled, err := unixClient(socket).Get(cmPath + "?watch=true")
	if err != nil {
		b.Fatal(err)
	}
	defer stalled.Body.Close() // never read
	bodies := [2]string{}
	for i := range bodies {
		bodies[i] = `{"data":{"k":"` + strings.Repeat(string(rune('a'+i)), size) + `"}}`
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		latencies := timeRequests(b, c, count(writes, func(j int) *http.Request { return mergePatch(cmPath+"/big", bodies[j%2]) }))
		took := time.Since(t0)
		b.StopTimer()
		if len(latencies) != writes {
			b.Fatalf("%d of %d writes answered", len(latencies), writes)
		}
		b.ReportMetric(float64(writes)/took.Seconds(), "writes/s")
		reportPercentiles(b, latencies)
		b.ReportMetric(float64(paddocktest.StatusKiB(b, cmd.Process.Pid, "VmHWM"))/1024, "peak-RSS-MiB")
		b.StartTimer()
	}
}

// BenchmarkIdleTCPConnections opens 20,000 TCP connections to the API
// that send nothing, as a local user without the token could, and times
// the owner's GETs over the Unix socket meanwhile. It reports the GETs'
// latency, the connections the kernel completed, and the daemon's most
// file descriptors against its cap.
func BenchmarkIdleTCPConnections(b *testing.B) {
	const conns = 20_000
	raiseFileLimit(b)
	e := benchEnv(b)
	port := freePort(b)
	socket := e.path("socket")
	cmd := exec.Command(paddockBin, "serve", "--listen", fmt.Sprintf("tcp://127.0.0.1:%d", port))
	cmd.Env = e.environ()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer stopServe(cmd)
	c := waitReady(b, socket)
	post(b, c, cmPath, `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"demo"}}`)
	for i := 0; i < b.N; i++ {
		var mu sync.Mutex
		var open []net.Conn
		var dialing sync.WaitGroup
		const dialers = 2000
		for range dialers {
			dialing.Go(func() {
				for range conns / dialers {
					conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
					if err != nil {
						continue // the daemon's queue is full: the kernel drops the handshake
					}
					mu.Lock()
					open = append(open, conn)
					mu.Unlock()
				}
			})
		}
		time.Sleep(time.Second) // the dialers fill the daemon's listener and its queue
		fds := 0
		latencies := timeRequests(b, c, count(200, func(int) *http.Request {
			fds = max(fds, fdCount(b, cmd.Process.Pid))
			time.Sleep(10 * time.Millisecond)
			return get(cmPath + "/demo")
		}))
		dialing.Wait()
		b.StopTimer()
		for _, conn := range open {
			conn.Close()
		}
		reportPercentiles(b, latencies)
		b.ReportMetric(float64(len(open)), "connected")
		b.ReportMetric(float64(fds), "daemon-fds")
		b.StartTimer()
	}
}

// waitReady returns a client of the daemon on socket once /readyz answers.
func waitReady(b *testing.B, socket string) *http.Client {
	c := unixClient(socket)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := c.Get("http://paddock/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return c
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("the daemon was not ready after 30 s")
	return nil
}

// raiseFileLimit lets this process open as many files as its hard limit
// allows: the connections the daemon's queue takes stay open, those it
// does not fail and close.
func raiseFileLimit(b *testing.B) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Fatal(err)
	}
}

func fdCount(b *testing.B, pid int) int {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		b.Fatal(err)
	}
	return len(entries)
}
