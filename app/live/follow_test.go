package live

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/platform/unixsock"
)

// states collects what the follower reports.
type states chan menu.State

// next is await in the background: the channel yields the state once it
// comes.
func (c states) next(t *testing.T, what string, ok func(menu.State) bool) <-chan menu.State {
	out := make(chan menu.State, 1)
	go func() {
		deadline := time.After(20 * time.Second)
		for {
			select {
			case s := <-c:
				if ok(s) {
					out <- s
					return
				}
			case <-deadline:
				t.Errorf("no state with %s", what)
				close(out)
				return
			}
		}
	}()
	return out
}

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
	d := paddocktest.NewDaemon(t)
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

// A daemon that stops answers a last request or two without being ready
// (a 503, or a kept connection's EOF) before its socket goes: the follower
// must go on to the next daemon from there. The stopping daemon is a fake
// that keeps answering 503, since a real one does so only for an instant.
func TestFollowsTheNextDaemonAfterOneThatAnsweredNotReady(t *testing.T) {
	d := paddocktest.NewDaemon(t)
	l, err := unixsock.Listen(d.Socket)
	if err != nil {
		t.Fatal(err)
	}
	stopping := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "the daemon is shutting down", http.StatusServiceUnavailable)
	})}
	go stopping.Serve(l)
	got := make(states, 100)
	f := &Follower{Client: d.Client(), Socket: d.Socket, Changed: func(s menu.State) { got <- s },
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	got.await(t, "the daemon down while it answers 503", func(s menu.State) bool { return !s.DaemonUp })
	stopping.Close()
	os.Remove(d.Socket)
	d.Start()
	select {
	case <-got.next(t, "the next daemon up", func(s menu.State) bool { return s.DaemonUp }):
	case err := <-done:
		t.Fatalf("the follower gave up: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v", err)
	}
}

// While a VM boots, the state holds its boot's step, read from its host
// agent's log through the API; once its start ends (it runs, or failed),
// the step is gone and its log no longer followed.
func TestFollowsBootSteps(t *testing.T) {
	d := paddocktest.NewDaemon(t)
	d.Start()
	cl := d.Client()
	got := make(states, 100)
	f := &Follower{Client: cl, Socket: d.Socket, Changed: func(s menu.State) { got <- s },
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	vm := &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "dev", Namespace: "default"}, Spec: resource.VMSpec{Running: true, TemplateRef: "t"}}
	if _, err := cl.Create(ctx, vm); err != nil {
		t.Fatal(err)
	}
	key := menu.VMKey("default", "dev")
	step := func(want string) func(menu.State) bool {
		return func(s menu.State) bool { return len(s.VMs) == 1 && s.Boots[key] == want }
	}
	created := paddocktest.Condition(resource.VMCreated, "True", resource.ReasonCreated, "")
	d.SetVMConditions("default", "dev", created, paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStarting, "booting"))
	d.AppendHostAgentLog("dev", `Starting QEMU (hint: to watch the boot progress, see the serial log)`)
	got.await(t, "the step booting the kernel", step("booting the kernel"))
	d.AppendHostAgentLog("dev", `Waiting for the essential requirement 1 of 2: "ssh"`)
	s := got.await(t, "the step waiting for SSH", step("waiting for SSH"))
	if m := menu.Build(s); !strings.Contains(find(m.Items, "dev — "), "Starting: waiting for SSH") {
		t.Errorf("Machines shows %q", find(m.Items, "dev — "))
	}

	d.SetVMConditions("default", "dev", paddocktest.Condition(resource.VMRunning, "True", resource.ReasonStarted, ""))
	got.await(t, "no step once the VM runs", func(s menu.State) bool {
		return len(s.VMs) == 1 && meta.IsStatusConditionTrue(s.VMs[0].Status.Conditions, resource.VMRunning) && s.Boots == nil
	})
	// The log is no longer followed: what it says next does not show.
	d.AppendHostAgentLog("dev", `Forwarding unix sockets`)
	select {
	case s := <-got:
		t.Errorf("a state after the VM ran: %+v", s)
	case <-time.After(2 * time.Second): // the API checks a followed log every 200 ms
	}

	// The next boot: the VM's controller says Starting before the new
	// host agent replaces the log, so the tray may read the earlier
	// boot's (written two seconds and more before: the wait above) first;
	// its steps must not show as this boot's.
	d.SetVMConditions("default", "dev", paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStarting, "booting"))
	got.await(t, "the VM booting again", func(s menu.State) bool {
		return len(s.VMs) == 1 && meta.FindStatusCondition(s.VMs[0].Status.Conditions, resource.VMRunning).Reason == resource.ReasonStarting
	})
	time.Sleep(time.Second) // the API serves the old log meanwhile
	d.RemoveHostAgentLog("dev")
	d.AppendHostAgentLog("dev", `Creating iso file /x/cidata.iso`)
	got.await(t, "the first step of the new boot", func(s menu.State) bool {
		if step := s.Boots[key]; step != "" && step != "preparing the VM's disk" {
			t.Errorf("the earlier boot's step %q shows", step)
		}
		return s.Boots[key] == "preparing the VM's disk"
	})

	// A start that fails ends the following too.
	d.SetVMConditions("default", "dev", paddocktest.Condition(resource.VMRunning, "False", resource.ReasonStartFailed, "no SSH"))
	s = got.await(t, "no step once the start failed", func(s menu.State) bool { return len(s.VMs) == 1 && s.Boots == nil })
	if m := menu.Build(s); find(m.Items, "dev — ") != "dev — Failed (StartFailed)" {
		t.Errorf("Machines shows %q", find(m.Items, "dev — "))
	}

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v", err)
	}
}

// find returns the label of the first Machines entry that starts with prefix.
func find(items []menu.Item, prefix string) string {
	for _, it := range items {
		for _, c := range it.Children {
			if strings.HasPrefix(c.Label, prefix) {
				return c.Label
			}
		}
	}
	return ""
}
