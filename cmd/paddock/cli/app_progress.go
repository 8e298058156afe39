package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// progress shows where the App is while a command waits: what its Settled
// condition says (creating the VM, booting, restarting, waiting for the
// engine, ...), on one updating line on a terminal, as plain lines
// otherwise, each only when it changes.
type progress struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	last string
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// follow shows the App's progress until the returned stop is called.
func (p *progress) follow(ctx context.Context, cl *client.Client) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = cl.Follow(ctx, resource.KindApp, "", client.ListOptions{}, func(ev client.Event) (bool, error) {
			if a, ok := ev.Object.(*resource.App); ok {
				if s := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); s != nil && s.Status != "True" {
					p.show(s.Reason + ": " + s.Message)
				}
			}
			return false, nil
		})
	}()
	return func() { cancel(); <-done }
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
