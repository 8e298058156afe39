package image

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/lima-vm/lima/pkg/downloader"
)

// Progress is how far a download got, in bytes; Total is -1 when the
// server did not say.
type Progress struct {
	Done, Total int64
}

// String draws the progress as a bar with cheggaaa/pb, the library Lima's
// downloader draws its own with: "[====>      ] 120.00 MiB / 330.00 MiB
// 36.36%", or "120 MiB so far" when the size is unknown.
func (p Progress) String() string {
	if p.Total <= 0 {
		return fmt.Sprintf("%.0f MiB so far", float64(p.Done)/(1<<20))
	}
	bar := pb.New64(p.Total)
	bar.Set(pb.Bytes, true)
	bar.SetCurrent(p.Done)
	bar.SetWidth(48) // with the App's reason before it, a terminal's 80 columns
	bar.SetTemplateString(`{{bar . "[" "=" ">" " " "]"}} {{counters .}} {{percent .}}`)
	return bar.String()
}

// DownloadingError says that the image is still on its way.
type DownloadingError struct {
	Source   Source
	Progress Progress
}

func (e *DownloadingError) Error() string {
	return "downloading the guest image " + e.Progress.String()
}

const (
	// tick is how often a download's progress is read.
	tick = 500 * time.Millisecond
	// cachedWait is how long Local waits for a download it started, which
	// finds an image in the cache at once.
	cachedWait = 500 * time.Millisecond
)

// Fetcher downloads remote images into Cache, each at most once at a time,
// in the background, so that a caller that polls (the App's reconcile) is
// never held for the length of a download.
type Fetcher struct {
	Cache string

	mu   sync.Mutex
	jobs map[string]*job
}

type job struct {
	mu       sync.Mutex
	progress Progress
	done     bool
	path     string
	err      error
}

// Local returns the local file of s: s.Disk itself for a local disk, the
// cached download of a remote one. A remote image that is not cached yet
// is downloaded in the background, and Local answers a *DownloadingError
// with the progress until it is there. A failed download (a digest that
// does not match, a broken connection) is answered once; the next call
// starts it again.
func (f *Fetcher) Local(ctx context.Context, s Source) (string, error) {
	if !s.Remote() {
		return s.Disk, nil
	}
	f.mu.Lock()
	if f.jobs == nil {
		f.jobs = map[string]*job{}
	}
	j, running := f.jobs[s.Disk]
	if running && j.gone() {
		running = false // removed from the cache since: download again
	}
	if !running {
		j = &job{progress: Progress{Total: -1}}
		f.jobs[s.Disk] = j
		// The download outlives the call that started it.
		go j.run(context.WithoutCancel(ctx), f.Cache, s)
	}
	f.mu.Unlock()

	// A cached image is found at once: a new job is waited for briefly.
	deadline := time.Now()
	if !running {
		deadline = deadline.Add(cachedWait)
	}
	for {
		j.mu.Lock()
		done, path, err, p := j.done, j.path, j.err, j.progress
		j.mu.Unlock()
		switch {
		case done && err != nil:
			f.mu.Lock()
			delete(f.jobs, s.Disk)
			f.mu.Unlock()
			return "", err
		case done:
			return path, nil
		case !time.Now().Before(deadline):
			return "", &DownloadingError{Source: s, Progress: p}
		}
		time.Sleep(cachedWait / 10)
	}
}

// gone reports whether the job's download finished and its file is no
// longer there.
func (j *job) gone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.done || j.err != nil {
		return false
	}
	_, err := os.Stat(j.path)
	return err != nil
}

func (j *job) run(ctx context.Context, cache string, s Source) {
	path, err := Fetch(ctx, cache, s, func(p Progress) {
		j.mu.Lock()
		j.progress = p
		j.mu.Unlock()
	})
	j.mu.Lock()
	j.done, j.path, j.err = true, path, err
	j.mu.Unlock()
}

// Fetch downloads the remote image s into cache unless it is there,
// checks it against s.Digest, and returns the cached file. While it
// downloads, progress is called every half second. Lima's downloader
// writes into a temporary file that it renames into place only once the
// digest matched, so an interrupted or corrupted download leaves nothing
// in the cache, and the next Fetch starts it again.
func Fetch(ctx context.Context, cache string, s Source, progress func(Progress)) (string, error) {
	if s.Digest == "" {
		return "", fmt.Errorf("image %s: a download needs a digest to check", s.Disk)
	}
	total := contentLength(ctx, s.Disk)
	progress(Progress{Total: total})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { watch(ctx, cache, s.Disk, total, progress) })
	res, err := downloader.Download(ctx, "", s.Disk,
		downloader.WithCacheDir(cache),
		downloader.WithExpectedDigest(s.Digest),
		downloader.WithDescription("the guest image "+filepath.Base(s.Disk)))
	cancel()
	wg.Wait()
	if err != nil {
		return "", fmt.Errorf("download %s: %w", s.Disk, err)
	}
	if res.Status == downloader.StatusDownloaded && total > 0 {
		progress(Progress{Done: total, Total: total})
	}
	return res.CachePath, nil
}

// watch reports the size of the downloader's temporary file until ctx ends.
// Lima's downloader (v1.2.2) writes to data.tmp.PID.N in the URL's cache
// directory and shows its own progress bar only on a terminal, which the
// daemon has not.
func watch(ctx context.Context, cache, remote string, total int64, progress func(Progress)) {
	pattern := filepath.Join(cache, "download", "by-url-sha256", downloader.CacheKey(remote), "data.tmp.*")
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		tmps, _ := filepath.Glob(pattern)
		var done int64
		for _, tmp := range tmps {
			if st, err := os.Stat(tmp); err == nil {
				done = max(done, st.Size())
			}
		}
		progress(Progress{Done: done, Total: total})
	}
}

// contentLength asks the server for the image's size; -1 when it does not
// say.
func contentLength(ctx context.Context, url string) int64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, http.NoBody)
	if err != nil {
		return -1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return -1
	}
	return resp.ContentLength
}
