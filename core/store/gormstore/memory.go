package gormstore

import (
	"runtime/debug"
	"sync"
	"time"
)

// releaseAfter is how many bytes of objects a list or a watch's listing
// reads for the store to hand the memory it used back to the operating
// system once it is done. Reading an object costs about three times its
// JSON in short-lived memory.
const releaseAfter = 8 << 20

// releaseDelay is how long after the last such read the memory goes back:
// a burst of listings, such as the controllers' at start, releases once.
const releaseDelay = time.Second

// releaser hands the heap that large, short-lived reads grew back to the
// operating system. Go's runtime would keep it until its next garbage
// collection, which an idle daemon may not run for minutes, and then
// return it gradually; a desktop daemon is idle most of its life, and its
// resident memory is what its user sees.
type releaser struct {
	mu    sync.Mutex
	timer *time.Timer
}

// read notes that a list or listing read n bytes of objects.
func (r *releaser) read(n int) {
	if n < releaseAfter {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer == nil {
		r.timer = time.AfterFunc(releaseDelay, debug.FreeOSMemory)
		return
	}
	r.timer.Reset(releaseDelay)
}

// stop cancels a release not yet done.
func (r *releaser) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
}
