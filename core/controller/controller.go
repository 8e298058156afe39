package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"

	"paddock.dev/paddock/core/metrics"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Result tells the runtime what to do after a successful reconcile.
type Result struct {
	// RequeueAfter, when positive, reconciles the key again after this
	// long: use it after changing something no watch reports.
	RequeueAfter time.Duration
}

// ReconcileFunc makes the world match the object key names. It must be
// idempotent and return its errors rather than log them: the runtime logs
// them and retries with backoff, except a Terminal error, which it records
// in the object's status instead.
type ReconcileFunc func(ctx context.Context, key resource.Key) (Result, error)

// Mapper turns a store event into the keys to reconcile. A mapper that
// fails (it reads the store, say) has the event delivered again after a
// pause, so that no change is lost.
type Mapper func(store.Event) ([]resource.Key, error)

// Options tune a controller.
type Options struct {
	// Workers is how many keys are reconciled at once; 1 when zero.
	Workers int
	// MinBackoff and MaxBackoff bound the retry delay after an error;
	// 50 ms and 30 s when zero.
	MinBackoff, MaxBackoff time.Duration
	Logger                 *slog.Logger
	// Metrics counts and times the reconciles; nil records nothing.
	Metrics *metrics.Metrics
}

// Controller reconciles the keys its watches enqueue.
type Controller struct {
	name      string
	store     store.Store
	reconcile ReconcileFunc
	opts      Options
	queue     workqueue.TypedRateLimitingInterface[resource.Key]
	sources   []source
	log       *slog.Logger
	panics    atomic.Int64

	// mu guards runCtx, the context of the Run in progress, which the
	// goroutines the controller starts (helpers) end with.
	mu      sync.Mutex
	runCtx  context.Context // nil before Run and after its goroutines are joined
	helpers sync.WaitGroup
}

// source is one watched kind and the mappers of its events: a kind
// watched for several reasons is watched once, so that a start lists its
// objects once.
type source struct {
	kind    *resource.Kind
	mappers []Mapper
}

// New returns a controller named name (it names the log lines and the queue).
func New(name string, st store.Store, reconcile ReconcileFunc, opts Options) *Controller {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 50 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[resource.Key](opts.MinBackoff, opts.MaxBackoff)
	return &Controller{
		name:      name,
		store:     st,
		reconcile: reconcile,
		opts:      opts,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[resource.Key]{
			Name:  name,
			Clock: idleClock{},
		}),
		log: opts.Logger.With("controller", name),
	}
}

// Watches enqueues the keys mapper returns for every change of kind.
func (c *Controller) Watches(kind *resource.Kind, mapper Mapper) *Controller {
	for i := range c.sources {
		if c.sources[i].kind == kind {
			c.sources[i].mappers = append(c.sources[i].mappers, mapper)
			return c
		}
	}
	c.sources = append(c.sources, source{kind, []Mapper{mapper}})
	return c
}

// Enqueue asks for key to be reconciled.
func (c *Controller) Enqueue(key resource.Key) { c.queue.Add(key) }

// Run watches and reconciles until ctx is done, then waits for the
// reconciles in flight and the goroutines started with Go to return.
func (c *Controller) Run(ctx context.Context) {
	c.mu.Lock()
	c.runCtx = ctx
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, src := range c.sources {
		wg.Go(func() { c.watch(ctx, src) })
	}
	for i := 0; i < c.opts.Workers; i++ {
		wg.Go(func() {
			for c.next(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	c.mu.Lock()
	c.runCtx = nil
	c.mu.Unlock()
	c.helpers.Wait()
	if n := c.panics.Load(); n > 0 {
		c.log.Warn("stopped after recovering from panics; each is logged with its stack", "panics", n)
	}
}

// Go runs f beside the reconciles, for work on the object at key that
// outlives one reconcile (following a boot, say). f belongs to the
// controller's run: its context ends with the run, and Run returns only
// once f has. A panic in f is recovered, logged and counted as one in a
// reconcile is, and key is reconciled again. Go reports false, and f does
// not run, when the controller is not running.
func (c *Controller) Go(key resource.Key, f func(ctx context.Context)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx := c.runCtx
	if ctx == nil || ctx.Err() != nil {
		return false
	}
	c.helpers.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				c.panicked(ctx, key, r)
				c.queue.AddRateLimited(key)
			}
		}()
		f(ctx)
	})
	return true
}

// Panics is how many panics the controller has recovered from since it
// was made, in reconciles and in goroutines started with Go.
func (c *Controller) Panics() int64 { return c.panics.Load() }

// next reconciles one key; it reports false once the queue shuts down.
func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	began := time.Now()
	res, err := c.reconcileSafely(ctx, key)
	c.opts.Metrics.ObserveReconcile(c.name, resultOf(res, err), time.Since(began))
	var terr *TerminalError
	switch {
	case errors.Is(err, errPanicked):
		c.queue.AddRateLimited(key) // logged and counted already
	case err != nil && ctx.Err() != nil:
		// Shutting down: the key is reconciled again after the restart.
	case errors.As(err, &terr):
		if rerr := c.recordTerminal(ctx, key, terr); rerr != nil {
			c.log.Warn("recording a terminal error failed; retrying", "key", key.String(), "err", err, "recordErr", rerr)
			c.queue.AddRateLimited(key)
			break
		}
		c.log.Info("reconcile failed for good; recorded in status", "key", key.String(),
			"condition", terr.Condition, "reason", terr.Reason, "err", err)
		c.queue.Forget(key)
	case err != nil:
		level := slog.LevelWarn
		if resource.IsConflict(err) {
			level = slog.LevelDebug
		}
		c.log.Log(ctx, level, "reconcile failed; retrying", "key", key.String(), "retries", c.queue.NumRequeues(key), "err", err)
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, res.RequeueAfter)
	default:
		c.queue.Forget(key)
	}
	return true
}

// resultOf names a reconcile's outcome for the metrics.
func resultOf(res Result, err error) string {
	var terr *TerminalError
	switch {
	case errors.Is(err, errPanicked):
		return "panic"
	case errors.As(err, &terr):
		return "terminal"
	case err != nil:
		return "error"
	case res.RequeueAfter > 0:
		return "requeue"
	}
	return "success"
}

// errPanicked is what a reconcile that panicked returns.
var errPanicked = errors.New("reconcile panicked")

// reconcileSafely reconciles key; a panic is recovered, logged and
// counted, and returned as errPanicked.
func (c *Controller) reconcileSafely(ctx context.Context, key resource.Key) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.panicked(ctx, key, r)
			err = errPanicked
		}
	}()
	return c.reconcile(ctx, key)
}

// panicked logs a recovered panic with the key it concerns and the stack,
// and counts it.
func (c *Controller) panicked(ctx context.Context, key resource.Key, r any) {
	n := c.panics.Add(1)
	c.log.Log(ctx, slog.LevelError, "panic recovered; reconciling again after a backoff", "key", key.String(),
		"panic", fmt.Sprint(r), "panics", n, "stack", string(debug.Stack()))
}

// watch feeds one source's events into the queue, resuming after the last
// revision seen when a watch ends and re-listing when that is Gone.
func (c *Controller) watch(ctx context.Context, src source) {
	var from int64
	for ctx.Err() == nil {
		w, err := c.store.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: src.kind}, ResourceVersion: from})
		if err != nil {
			if resource.ReasonOf(err) == resource.ReasonGone {
				from = 0
				continue
			}
			c.log.Warn("watch failed; retrying", "kind", src.kind.Name, "err", err)
			pause(ctx)
			continue
		}
		var mapped bool
		from, mapped = c.drain(ctx, w, src, from)
		w.Stop()
		if !mapped {
			pause(ctx)
		}
	}
}

// pause waits a second before a watch is tried again, or until ctx ends.
func pause(ctx context.Context) {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// drain enqueues w's events until it ends and returns the revision to
// resume after, and false when it ended because an event could not be
// mapped: resuming then delivers that event again.
func (c *Controller) drain(ctx context.Context, w *store.Watcher, src source, from int64) (int64, bool) {
	caughtUp := from != 0
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, store.ErrWatchClosed) {
				c.log.Debug("watch ended; resuming", "kind", src.kind.Name, "from", from, "err", err)
			}
			return from, true
		}
		if ev.Type == store.Bookmark {
			caughtUp = true
			from = ev.Revision
			continue
		}
		for _, mapper := range src.mappers {
			keys, err := mapper(ev)
			if err != nil {
				c.log.Warn("cannot tell what a change concerns; watching again from it after a pause",
					"kind", src.kind.Name, "key", ev.Key.String(), "err", err)
				return from, false
			}
			for _, key := range keys {
				c.queue.Add(key)
			}
		}
		if caughtUp {
			from = ev.Revision
		}
	}
}
