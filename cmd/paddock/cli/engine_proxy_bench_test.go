//go:build linux

package cli

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
)

// The daemon's Docker socket against the VM's forward behind it, in one
// run on one App: a 'docker ps' round trip (the CLI as a user runs it, a
// new connection each time, and the API call alone on a new connection)
// and a 'docker load' of an image of PADDOCK_BENCH_LOAD_MIB MiB (1024 when
// unset), each measured through both sockets in turn, twice, in both
// orders (proxy, forward, forward, proxy). Beside each load's time it
// reports the daemon's CPU time during the loads through each socket.
//
//	PADDOCK_E2E=1 go test -run XXX -bench AppDockerProxy -benchtime 1x -timeout 90m ./cmd/paddock/cli
func BenchmarkAppDockerProxy(b *testing.B) {
	e := appEnv(b)
	if _, err := exec.LookPath("docker"); err != nil {
		b.Fatal("the benchmark needs the docker CLI (packaging/ci-deps.sh installs docker.io)")
	}
	daemon := e.serve().cmd.Process.Pid
	b.Cleanup(func() { e.run("", "delete", "--force", "--timeout=3m") })
	e.mustRun("set", "--wait=false", "running=false", "memory=2GiB", "disk=16GiB")
	e.mustRun("start", "--timeout=15m")
	short := e.path("short_dir")
	sockets := map[string]string{
		"proxy":   resource.EngineSocket(short, resource.EngineMoby),
		"forward": resource.EngineForward(short, resource.EngineMoby),
	}
	mib := 1024
	if v := os.Getenv("PADDOCK_BENCH_LOAD_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("PADDOCK_BENCH_LOAD_MIB=%q is no number of MiB", v)
		}
		mib = n
	}
	image := bigImage(b, int64(mib)<<20)
	docker := func(socket string, args ...string) string {
		cmd := exec.Command("docker", append([]string{"-H", "unix://" + socket}, args...)...)
		cmd.Env = e.environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("docker %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	// Each path is warmed once: the first request through a socket pays
	// for connections that later ones reuse or find open. A first load,
	// not counted, grows the VM's disk, so that no measured load is the
	// one that grows it.
	for _, s := range sockets {
		docker(s, "ps")
	}
	t0 := time.Now()
	docker(sockets["forward"], "load", "-i", image)
	docker(sockets["forward"], "rmi", "pd-big:1")
	b.Logf("docker load of %d MiB through the forward, to warm up (not counted): %s", mib, time.Since(t0).Round(time.Millisecond))
	b.ResetTimer()
	const rounds = 15
	ps := map[string][]time.Duration{}
	api := map[string][]time.Duration{}
	load := map[string]time.Duration{}
	// The daemon's CPU time during the loads through each socket: through
	// the proxy it is what the proxy takes from the rest of the machine,
	// which a loaded host feels; through the forward, the daemon's own
	// background work over the same time.
	daemonCPU := map[string]float64{}
	for range b.N {
		// Both orders: proxy, forward, then forward, proxy.
		order := []string{"proxy", "forward", "forward", "proxy"}
		for range rounds {
			for _, name := range order[:2] {
				t0 := time.Now()
				docker(sockets[name], "ps")
				ps[name] = append(ps[name], time.Since(t0))
				api[name] = append(api[name], containersJSON(b, sockets[name]))
			}
		}
		for _, name := range order {
			t0, cpu0 := time.Now(), cpuSeconds(b, daemon)
			out := docker(sockets[name], "load", "-i", image)
			took := time.Since(t0)
			load[name] += took
			daemonCPU[name] += cpuSeconds(b, daemon) - cpu0
			b.Logf("docker load of %d MiB through the %s: %s (%s)", mib, name, took.Round(time.Millisecond), strings.TrimSpace(out))
			docker(sockets[name], "rmi", "pd-big:1")
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, name := range []string{"proxy", "forward"} {
		b.ReportMetric(ms(median(ps[name])), "ms/ps-"+name)
		b.ReportMetric(ms(median(api[name])), "ms/api-"+name)
		b.ReportMetric(load[name].Seconds()/float64(2*b.N), "s/load-"+name)
		b.ReportMetric(daemonCPU[name]/float64(2*b.N), "daemon-cpu-s/load-"+name)
	}
	b.ReportMetric(float64(median(ps["proxy"]))/float64(median(ps["forward"])), "x/ps")
	b.ReportMetric(float64(median(api["proxy"]))/float64(median(api["forward"])), "x/api")
	b.ReportMetric(float64(load["proxy"])/float64(load["forward"]), "x/load")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// containersJSON times Docker's list of containers (what 'docker ps'
// asks) on a new connection to socket.
func containersJSON(b *testing.B, socket string) time.Duration {
	b.Helper()
	c := &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
	t0 := time.Now()
	resp, err := c.Get("http://docker/v1.41/containers/json")
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("containers/json through %s: %s %v", socket, resp.Status, err)
	}
	return time.Since(t0)
}

// bigImage writes an image as 'docker save' does (pd-big:1, one layer
// holding one file of size random bytes) and returns its path.
func bigImage(b testing.TB, size int64) string {
	b.Helper()
	dir := b.TempDir()
	layer := filepath.Join(dir, "layer.tar")
	f, err := os.Create(layer)
	if err != nil {
		b.Fatal(err)
	}
	h := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(f, h))
	tw.WriteHeader(&tar.Header{Name: "big", Mode: 0o644, Size: size, ModTime: time.Unix(0, 0)})
	if _, err := io.CopyN(tw, rand.Reader, size); err != nil {
		b.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	diffID := hex.EncodeToString(h.Sum(nil))
	config, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux", "config": map[string]any{},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + diffID}},
	})
	configSum := sha256.Sum256(config)
	configName := hex.EncodeToString(configSum[:]) + ".json"
	manifest, _ := json.Marshal([]map[string]any{{"Config": configName, "RepoTags": []string{"pd-big:1"}, "Layers": []string{diffID + "/layer.tar"}}})

	image := filepath.Join(dir, "pd-big.tar")
	out, err := os.Create(image)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	tw = tar.NewWriter(bw)
	add := func(name string, data []byte) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0)})
		tw.Write(data)
	}
	add(configName, config)
	add("manifest.json", manifest)
	tw.WriteHeader(&tar.Header{Name: diffID + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: time.Unix(0, 0)})
	lf, err := os.Open(layer)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := lf.Stat()
	tw.WriteHeader(&tar.Header{Name: diffID + "/layer.tar", Mode: 0o644, Size: st.Size(), ModTime: time.Unix(0, 0)})
	if _, err := io.Copy(tw, lf); err != nil {
		b.Fatal(err)
	}
	lf.Close()
	os.Remove(layer)
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return image
}
