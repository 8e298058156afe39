package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
)

// Follower keeps a menu.State current for one daemon.
type Follower struct {
	Client *client.Client
	// Socket is the daemon's Unix socket: its creation says the daemon is
	// back.
	Socket string
	// Changed receives every new state; calls never overlap.
	Changed func(menu.State)
	Log     *slog.Logger
}

// Bounds of the retries after the socket appeared, while the daemon gets
// ready, and after an error that is not the daemon being away.
const (
	readyWithin = 30 * time.Second
	retryFirst  = 50 * time.Millisecond
	retryMax    = 2 * time.Second
	errorPause  = 5 * time.Second
)

// Run follows the daemon until ctx ends. It returns early only when the
// socket's directory cannot be watched: any other failure is logged and
// tried again, since a follower that gave up would leave the menu stale
// for good.
func (f *Follower) Run(ctx context.Context) error {
	notes, err := f.watchSocket()
	if err != nil {
		return err
	}
	defer notes.Close()
	for {
		began := time.Now()
		err := f.follow(ctx, notes)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ready := f.Client.Ready(ctx)
		if ready != nil {
			f.Changed(menu.State{})
		}
		switch {
		case errors.Is(ready, client.ErrUnreachable):
			f.Log.Info("the daemon is not running; waiting for its socket", "socket", f.Socket)
			if err := f.waitForDaemon(ctx, notes); err != nil && ctx.Err() == nil {
				// The watch lost events (its queue overflowed): look
				// again.
				f.Log.Warn("watching the daemon's socket failed; looking again", "err", err, "in", errorPause)
				sleep(ctx, errorPause)
			}
		case ready != nil:
			// It answers but is not ready: starting, or stopping (a
			// stopping daemon's last answers). Either it gets ready, or
			// the next round finds it gone.
			f.becameReady(ctx)
		case errors.Is(err, errDaemonGone):
			// A daemon stopped and another is ready already: list and
			// watch it.
		case time.Since(began) < errorPause:
			// It is ready, yet its streams failed at once: do not
			// hammer it.
			f.Log.Warn("following the daemon failed; trying again", "err", err, "in", errorPause)
			sleep(ctx, errorPause)
		default:
			// The streams broke (a daemon restart, a network error);
			// list and watch again.
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// watchSocket asks the OS to report changes in the socket's directory. It
// is armed before the first attempt, so a daemon that comes up in between
// is not missed.
func (f *Follower) watchSocket() (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(filepath.Dir(f.Socket)); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// waitForDaemon returns once the daemon answers /readyz: it tries after
// each change to the socket, for a bounded time, since the socket exists a
// moment before the daemon listens and is ready.
func (f *Follower) waitForDaemon(ctx context.Context, notes *fsnotify.Watcher) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-notes.Errors:
			return err
		case ev := <-notes.Events:
			if !f.isSocket(ev) || ev.Op.Has(fsnotify.Remove) {
				continue
			}
		}
		if f.becameReady(ctx) {
			return nil
		}
	}
}

// becameReady asks /readyz with a growing pause, for at most readyWithin.
func (f *Follower) becameReady(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, readyWithin)
	defer cancel()
	for pause := retryFirst; ; pause = min(2*pause, retryMax) {
		if f.Client.Ready(ctx) == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pause):
		}
	}
}

// follow lists and watches the App and the VMs until either stream fails;
// it reports a state each time one changes, from when both are listed.
//
// A daemon that stops removes its socket: then follow ends at once with
// errDaemonGone, rather than after the client's wait for a daemon that
// went away (which a crash, leaving the socket behind, still takes).
func (f *Follower) follow(ctx context.Context, notes *fsnotify.Watcher) error {
	if err := f.Client.Ready(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-notes.Events:
				if f.isSocket(ev) && ev.Op.Has(fsnotify.Remove) {
					cancel(errDaemonGone)
					return
				}
			}
		}
	}()
	s := &snapshot{changed: f.Changed}
	s.boots = boots{ctx: ctx, follow: f.Client.FollowBoot, stepped: s.report}
	defer func() {
		cancel(nil)
		s.boots.wait() // the boots' following ends with ctx
	}()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, k := range []*resource.Kind{resource.KindApp, resource.KindVM} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.Client.Follow(ctx, k, "", client.ListOptions{}, func(ev client.Event) (bool, error) {
				s.apply(k, ev)
				return false, nil
			})
			cancel(nil)
		}()
	}
	wg.Wait()
	if cause := context.Cause(ctx); errors.Is(cause, errDaemonGone) {
		return cause
	}
	if err := firstReal(errs); err != nil {
		return err
	}
	return ctx.Err()
}

// errDaemonGone says the daemon's socket was removed: it stopped.
var errDaemonGone = fmt.Errorf("%w: its socket was removed", client.ErrUnreachable)

// isSocket reports whether a file system event concerns the socket.
func (f *Follower) isSocket(ev fsnotify.Event) bool {
	return filepath.Clean(ev.Name) == filepath.Clean(f.Socket)
}

// firstReal is the error that ended the streams, not the cancellation it
// caused in the other one.
func firstReal(errs []error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return nil
}

// snapshot is what the two streams have reported so far.
type snapshot struct {
	mu      sync.Mutex
	changed func(menu.State)
	// objects by kind, then by namespace/name; pending gathers a fresh
	// list until its bookmark.
	objects map[*resource.Kind]map[string]resource.Object
	pending map[*resource.Kind]map[string]resource.Object
	boots   boots
}

func key(obj resource.Object) string {
	m := obj.GetMeta()
	return m.Namespace + "/" + m.Name
}

func (s *snapshot) apply(k *resource.Kind, ev client.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.objects == nil {
		s.objects = map[*resource.Kind]map[string]resource.Object{}
		s.pending = map[*resource.Kind]map[string]resource.Object{}
	}
	if ev.Listing && ev.Type != "BOOKMARK" {
		if s.pending[k] == nil {
			s.pending[k] = map[string]resource.Object{}
		}
		s.pending[k][key(ev.Object)] = ev.Object
		return
	}
	// A list ends with its bookmark, or, when its stream broke off and
	// resumed after the last object seen, with the first later event.
	if list, ok := s.pending[k]; ok || s.objects[k] == nil {
		if list == nil {
			list = map[string]resource.Object{}
		}
		s.objects[k] = list
		delete(s.pending, k)
	}
	switch ev.Type {
	case "BOOKMARK":
		if !ev.Listing {
			return
		}
	case "DELETED":
		delete(s.objects[k], key(ev.Object))
	default:
		s.objects[k][key(ev.Object)] = ev.Object
	}
	if k == resource.KindVM {
		s.boots.sync(s.objects[k], &s.mu)
	}
	s.report()
}

// report sends the state, once both kinds are listed. The caller holds
// s.mu.
func (s *snapshot) report() {
	if len(s.objects) == 2 {
		s.changed(s.state())
	}
}

// state builds the menu's view of the snapshot.
func (s *snapshot) state() menu.State {
	st := menu.State{DaemonUp: true, Boots: s.boots.current()}
	for _, obj := range s.objects[resource.KindApp] {
		st.App = obj.(*resource.App)
	}
	for _, obj := range s.objects[resource.KindVM] {
		st.VMs = append(st.VMs, *obj.(*resource.VM))
	}
	slices.SortFunc(st.VMs, func(a, b resource.VM) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return st
}
