package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// progress shows where an object is while a command waits on it: what its
// condition says (for an App its Settled: creating the VM, booting,
// restarting, waiting for the engine; for a VM its Running) and, while its
// VM boots, the host agent's steps (disk, QEMU, SSH, boot scripts), on one
// updating line on a terminal, as plain lines otherwise, each only when it
// changes. It is shown as well as it can be: a log that cannot be read
// shows nothing.
type progress struct {
	w       io.Writer
	tty     bool
	mu      sync.Mutex
	last    string
	booting bool          // the object's condition says its VM is starting
	seen    int64         // the revision of the last change shown
	changed chan struct{} // signalled when seen moves
}

// watched is what a progress follows: the object's kind and name, and
// what one of its states shows.
type watched struct {
	kind     *resource.Kind
	ns, name string
	// state returns the line that obj's state shows ("" for none),
	// whether its VM boots, and that VM's namespace and name.
	state func(obj resource.Object) (line string, booting bool, vmNS, vmName string)
}

// appWatched follows the App: its Settled condition, and its VM's boot.
func appWatched() watched {
	return watched{kind: resource.KindApp, name: resource.AppName, state: func(obj resource.Object) (string, bool, string, string) {
		a := obj.(*resource.App)
		s := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled)
		if s == nil || s.Status == "True" {
			return "", false, a.Spec.Namespace, resource.AppVMName
		}
		return s.Reason + ": " + s.Message, s.Reason == resource.ReasonStarting, a.Spec.Namespace, resource.AppVMName
	}}
}

// vmWatched follows the VM ns/name on its way to running: its Running
// condition while it starts or restarts, and its boot.
func vmWatched(ns, name string) watched {
	return watched{kind: resource.KindVM, ns: ns, name: name, state: func(obj resource.Object) (string, bool, string, string) {
		v := obj.(*resource.VM)
		r := meta.FindStatusCondition(v.Status.Conditions, resource.VMRunning)
		if r == nil || r.Status == "True" || (r.Reason != resource.ReasonStarting && r.Reason != resource.ReasonReconciling) {
			return "", false, ns, name
		}
		return r.Reason + ": " + r.Message, r.Reason == resource.ReasonStarting, ns, name
	}}
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd())), changed: make(chan struct{}, 1)}
}

// follow shows the progress of what w names until the returned stop is
// called. It returns once the object's current state was read (or after
// a few seconds without an answer), so that a change the caller asks for
// next is seen. stop(rv) first shows the changes up to revision rv, the
// one the caller's wait ended with (waiting a few seconds at most for the
// watch to deliver them); stop("") ends at once.
func (p *progress) follow(ctx context.Context, cl *client.Client, w watched) (stop func(rv string)) {
	began := time.Now() // before the change the caller asks for: an earlier boot's log lines are older
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	vms := make(chan [2]string, 1) // the VM's namespace and name, once known
	read := make(chan struct{})
	var readOnce sync.Once
	wg.Go(func() {
		opts := client.ListOptions{FieldSelector: "metadata.name=" + w.name}
		_ = cl.Follow(ctx, w.kind, w.ns, opts, func(ev client.Event) (bool, error) {
			if ev.Object == nil || ev.Object.GetMeta().Name != w.name {
				return false, nil
			}
			line, booting, vmNS, vmName := w.state(ev.Object)
			select {
			case vms <- [2]string{vmNS, vmName}:
			default:
			}
			readOnce.Do(func() { close(read) })
			p.mu.Lock()
			p.booting = booting
			p.mu.Unlock()
			if line != "" {
				p.show(line)
			}
			rv, _ := strconv.ParseInt(ev.Object.GetMeta().ResourceVersion, 10, 64)
			p.mu.Lock()
			p.seen = max(p.seen, rv)
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
			return false, nil
		})
	})
	wg.Go(func() {
		select {
		case vm := <-vms:
			cl.FollowBoot(ctx, vm[0], vm[1], began, func(step string) {
				p.mu.Lock()
				booting := p.booting
				p.mu.Unlock()
				if booting {
					p.show("Starting: " + step)
				}
			})
		case <-ctx.Done():
		}
	})
	select {
	case <-read:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
	return func(rv string) {
		p.catchUp(rv)
		cancel()
		wg.Wait()
	}
}

// catchUp waits until the change of revision rv was shown, or a few
// seconds passed.
func (p *progress) catchUp(rv string) {
	want, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return
	}
	timeout := time.After(3 * time.Second)
	for {
		p.mu.Lock()
		seen := p.seen
		p.mu.Unlock()
		if seen >= want {
			return
		}
		select {
		case <-p.changed:
		case <-timeout:
			return
		}
	}
}

func (p *progress) show(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line == p.last {
		return
	}
	p.last = line
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

// done ends the updating line on a terminal.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.last != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
