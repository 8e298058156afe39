package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
)

// progress shows where the App is while a command waits: what its Settled
// condition says (creating the VM, booting, restarting, waiting for the
// engine, ...) and, while its VM boots, the host agent's steps (disk,
// QEMU, SSH, boot scripts), on one updating line on a terminal, as plain
// lines otherwise, each only when it changes. It is shown as well as it
// can be: a log that cannot be read shows nothing.
type progress struct {
	w       io.Writer
	tty     bool
	mu      sync.Mutex
	last    string
	booting bool // the App's Settled says its VM is starting
}

// bootSteps are the host agent's log lines that mark a boot's steps, in
// order, with what they mean to a person.
var bootSteps = []struct{ marker, step string }{
	{"Creating iso file", "preparing the VM's disk"},
	{"Starting QEMU", "booting the kernel"},
	{"Waiting for the essential requirement 1 of", "waiting for SSH"},
	{"The essential requirement 1 of", "SSH is up; setting up the guest"},
	{"Waiting for the final requirement", "running the boot scripts"},
	{"Forwarding unix sockets", "forwarding the engine's socket"},
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// follow shows the App's progress until the returned stop is called.
func (p *progress) follow(ctx context.Context, cl *client.Client) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	logs := make(chan string, 1) // the App's namespace, once known
	wg.Go(func() {
		_ = cl.Follow(ctx, resource.KindApp, "", client.ListOptions{}, func(ev client.Event) (bool, error) {
			if a, ok := ev.Object.(*resource.App); ok {
				select {
				case logs <- a.Spec.Namespace:
				default:
				}
				if s := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled); s != nil && s.Status != "True" {
					p.mu.Lock()
					p.booting = s.Reason == resource.ReasonStarting
					p.mu.Unlock()
					p.show(s.Reason + ": " + s.Message)
				}
			}
			return false, nil
		})
	})
	wg.Go(func() { p.followBoot(ctx, cl, logs) })
	return func() { cancel(); wg.Wait() }
}

// followBoot shows the boot steps the host agent of the App's VM logs,
// while the App says its VM is starting. The log is opened again when it
// ends (a new boot writes a new one).
func (p *progress) followBoot(ctx context.Context, cl *client.Client, namespaces <-chan string) {
	var ns string
	select {
	case ns = <-namespaces:
	case <-ctx.Done():
		return
	}
	for ctx.Err() == nil {
		if r, err := cl.Logs(ctx, ns, app.VMName, client.LogOptions{Stream: resource.VMLogHostAgent, Follow: true}); err == nil {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
			for sc.Scan() {
				p.mu.Lock()
				booting := p.booting
				p.mu.Unlock()
				for _, s := range bootSteps {
					if booting && strings.Contains(sc.Text(), s.marker) {
						p.show("Starting: " + s.step)
					}
				}
			}
			r.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
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
