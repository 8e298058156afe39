package live

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"paddock.dev/paddock/app/internal/daemontest"
	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// states collects what the follower reports.
type states chan menu.State

// await returns the first state that ok accepts, failing after a while.
func (c states) await(t *testing.T, what string, ok func(menu.State) bool) menu.State {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case s := <-c:
			if ok(s) {
				return s
			}
		case <-deadline:
			t.Fatalf("no state with %s", what)
		}
	}
}

func TestFollowsTheDaemonThroughRestarts(t *testing.T) {
	d := daemontest.New(t)
	cl := d.Client()
	got := make(states, 100)
	f := &Follower{Client: cl, Socket: d.Socket, Changed: func(s menu.State) { got <- s },
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	got.await(t, "the daemon down before it starts", func(s menu.State) bool { return !s.DaemonUp })
	d.Start()
	got.await(t, "the daemon up, no App", func(s menu.State) bool { return s.DaemonUp && s.App == nil })

	app := &resource.App{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "App"},
		Metadata: resource.ObjectMeta{Name: resource.AppName}}
	if _, err := cl.Create(ctx, app); err != nil {
		t.Fatal(err)
	}
	got.await(t, "the App created", func(s menu.State) bool { return s.App != nil && !s.App.Spec.Running })
	if _, err := cl.Patch(ctx, resource.KindApp, "", resource.AppName, []byte(`{"spec":{"running":true}}`)); err != nil {
		t.Fatal(err)
	}
	got.await(t, "spec.running true", func(s menu.State) bool { return s.App != nil && s.App.Spec.Running })

	d.Stop()
	got.await(t, "the daemon down after it stopped", func(s menu.State) bool { return !s.DaemonUp })
	// Changed while the tray could not see it: the tray must re-list.
	if _, err := d.Store.Delete(ctx, resource.Key{Kind: "App", Name: resource.AppName}, store.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	d.Start()
	got.await(t, "the daemon up again, the App gone", func(s menu.State) bool { return s.DaemonUp && s.App == nil })

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v", err)
	}
}
