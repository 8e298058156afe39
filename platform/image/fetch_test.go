package image

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
)

// payload stands for a disk image: 4 MiB of varied bytes.
var payload = func() []byte {
	b := make([]byte, 4<<20)
	for i := range b {
		b[i] = byte(i * 7 / 5)
	}
	return b
}()

func remote(url string, content []byte) Source {
	return Source{Disk: url + "/debian.qcow2", Digest: digest.SHA512.FromBytes(content), Arch: "x86_64"}
}

// cached lists the complete files in the download cache.
func cached(t *testing.T, cache string) []string {
	t.Helper()
	got, err := filepath.Glob(filepath.Join(cache, "download", "by-url-sha256", "*", "data"))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// serve answers HEAD with the size and GET with the body in four parts,
// pause apart; the first `cut` GETs stop after the first part and drop the
// connection.
func serve(t *testing.T, body []byte, pause time.Duration, cut int32) (*httptest.Server, *atomic.Int32) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		n := gets.Add(1)
		part := len(body) / 4
		for i := 0; i < 4; i++ {
			w.Write(body[i*part : (i+1)*part])
			w.(http.Flusher).Flush()
			if n <= cut {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			time.Sleep(pause)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &gets
}

func TestFetchRefusesAnImageWhoseDigestDoesNotMatchAndCachesNothing(t *testing.T) {
	srv, _ := serve(t, payload, 0, 0)
	cache := t.TempDir()
	s := remote(srv.URL, []byte("another image"))
	_, err := Fetch(context.Background(), cache, s, func(Progress) {})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("digest")) {
		t.Fatalf("Fetch of a corrupted image: %v", err)
	}
	if got := cached(t, cache); len(got) != 0 {
		t.Fatalf("a corrupted image is in the cache: %v", got)
	}
}

func TestFetchStartsAnInterruptedDownloadAgainAndCachesTheImage(t *testing.T) {
	srv, gets := serve(t, payload, 0, 1)
	cache := t.TempDir()
	s := remote(srv.URL, payload)
	if _, err := Fetch(context.Background(), cache, s, func(Progress) {}); err == nil {
		t.Fatal("a download cut short succeeded")
	}
	if got := cached(t, cache); len(got) != 0 {
		t.Fatalf("a partial image is in the cache: %v", got)
	}
	path, err := Fetch(context.Background(), cache, s, func(Progress) {})
	if err != nil {
		t.Fatalf("the download started again: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, payload) {
		t.Fatalf("%s holds %d bytes, not the image", path, len(got))
	}
	srv.Close()
	again, err := Fetch(context.Background(), cache, s, func(Progress) {})
	if err != nil || again != path {
		t.Fatalf("the cached image, with the server gone: %s, %v", again, err)
	}
	if gets.Load() != 2 {
		t.Fatalf("%d downloads, want 2", gets.Load())
	}
}

func TestFetchReportsProgressInBytesOfTheWhole(t *testing.T) {
	srv, _ := serve(t, payload, 700*time.Millisecond, 0)
	var mu sync.Mutex
	var seen []Progress
	_, err := Fetch(context.Background(), t.TempDir(), remote(srv.URL, payload), func(p Progress) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	partial := false
	for i, p := range seen {
		if p.Total != int64(len(payload)) || (i > 0 && p.Done < seen[i-1].Done) {
			t.Fatalf("progress %v after %v", p, seen[:i])
		}
		partial = partial || (p.Done > 0 && p.Done < p.Total)
	}
	if !partial || seen[len(seen)-1].Done != int64(len(payload)) {
		t.Fatalf("progress never between start and end, or not ending at the whole: %v", seen)
	}
	if got := (Progress{Done: 1 << 20, Total: 4 << 20}).String(); !strings.HasPrefix(got, "[") || !strings.HasSuffix(got, "] 1.00 MiB / 4.00 MiB 25.00%") {
		t.Fatalf("progress reads %q", got)
	}
	if got := (Progress{Done: 3 << 20, Total: -1}).String(); got != "3 MiB so far" {
		t.Fatalf("progress of an unknown size reads %q", got)
	}
}

// Local answers at once while the image downloads, with the progress, then
// the cached file; a failed download is said once and tried again.
func TestLocalSaysHowFarTheDownloadIsThenGivesTheFile(t *testing.T) {
	srv, _ := serve(t, payload, 700*time.Millisecond, 0)
	f := &Fetcher{Cache: t.TempDir()}
	s := remote(srv.URL, payload)
	var dl *DownloadingError
	_, err := f.Local(context.Background(), s)
	if !errors.As(err, &dl) {
		t.Fatalf("Local while downloading: %v", err)
	}
	var path string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if path, err = f.Local(context.Background(), s); !errors.As(err, &dl) {
			break
		}
		if p := dl.Progress; p.Total != int64(len(payload)) && (p.Total != -1 || p.Done != 0) {
			t.Fatalf("progress %v", dl.Progress)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, payload) {
		t.Fatalf("%s is not the image", path)
	}

	fast, gets := serve(t, payload, 0, 0)
	bad := Source{Disk: fast.URL + "/other.qcow2", Digest: digest.SHA512.FromString("x"), Arch: "x86_64"}
	wait := func() error {
		for {
			if _, err := f.Local(context.Background(), bad); !errors.As(err, &dl) {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if err := wait(); err == nil {
		t.Fatal("a corrupted image was taken")
	}
	if err := wait(); err == nil || gets.Load() != 2 {
		t.Fatalf("the failed download was not tried again: %v, %d downloads", err, gets.Load())
	}
}
