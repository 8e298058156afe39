package controller

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"

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
// them and retries with backoff.
type ReconcileFunc func(ctx context.Context, key resource.Key) (Result, error)

// Mapper turns a store event into the keys to reconcile.
type Mapper func(store.Event) []resource.Key

// Options tune a controller.
type Options struct {
	// Workers is how many keys are reconciled at once; 1 when zero.
	Workers int
	// MinBackoff and MaxBackoff bound the retry delay after an error;
	// 50 ms and 30 s when zero.
	MinBackoff, MaxBackoff time.Duration
	Logger                 *slog.Logger
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
}

type source struct {
	kind   *resource.Kind
	mapper Mapper
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
	c.sources = append(c.sources, source{kind, mapper})
	return c
}

// Enqueue asks for key to be reconciled.
func (c *Controller) Enqueue(key resource.Key) { c.queue.Add(key) }

// Run watches and reconciles until ctx is done, then waits for the
// reconciles in flight to return.
func (c *Controller) Run(ctx context.Context) {
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
}

// next reconciles one key; it reports false once the queue shuts down.
func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	res, err := c.reconcile(ctx, key)
	switch {
	case err != nil && ctx.Err() != nil:
		// Shutting down: the key is reconciled again after the restart.
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
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
			continue
		}
		from = c.drain(ctx, w, src, from)
		w.Stop()
	}
}

// drain enqueues w's events until it ends and returns the revision to
// resume after.
func (c *Controller) drain(ctx context.Context, w *store.Watcher, src source, from int64) int64 {
	caughtUp := from != 0
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, store.ErrWatchClosed) {
				c.log.Debug("watch ended; resuming", "kind", src.kind.Name, "from", from, "err", err)
			}
			return from
		}
		if ev.Type == store.Bookmark {
			caughtUp = true
		}
		if caughtUp {
			from = ev.Revision
		}
		if ev.Type == store.Bookmark {
			continue
		}
		for _, key := range src.mapper(ev) {
			c.queue.Add(key)
		}
	}
}
