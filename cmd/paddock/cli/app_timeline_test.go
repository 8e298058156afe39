//go:build linux

package cli

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// appTimeline is when a client of the daemon's API, following the App and
// its VM from the outside as the CLI does, first saw each step of a start:
// the VM's Running condition True (the VM's controller took the host
// agent's Running event), the App's ContainerEngineReady True (the App's
// controller reached the engine) and its Settled True with reason Running.
// Each is the time the event arrived, within a millisecond of the daemon's
// write on an idle host.
type appTimeline struct {
	mu                         sync.Mutex
	vmRunning, engine, settled time.Time
	cancel                     context.CancelFunc
	done                       sync.WaitGroup
}

// followAppStart starts following the App and its VM (in the App's
// default namespace) over socket; stop ends it and returns what it saw.
func followAppStart(b *testing.B, socket string) *appTimeline {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tl := &appTimeline{cancel: cancel}
	cl := client.NewUnix(socket)
	follow := func(k *resource.Kind, ns string, seen func(resource.Object, time.Time)) {
		tl.done.Go(func() {
			_ = cl.Follow(ctx, k, ns, client.ListOptions{}, func(ev client.Event) (bool, error) {
				if ev.Object != nil {
					seen(ev.Object, time.Now())
				}
				return false, nil
			})
		})
	}
	first := func(at *time.Time, now time.Time) {
		tl.mu.Lock()
		defer tl.mu.Unlock()
		if at.IsZero() {
			*at = now
		}
	}
	isTrue := func(conds []metav1.Condition, t string, gen int64) *metav1.Condition {
		c := meta.FindStatusCondition(conds, t)
		if c == nil || c.Status != metav1.ConditionTrue || !resource.ConditionCurrent(c, gen) {
			return nil
		}
		return c
	}
	follow(resource.KindVM, resource.DefaultAppNamespace, func(obj resource.Object, now time.Time) {
		vm := obj.(*resource.VM)
		if vm.Metadata.Name == resource.AppVMName && isTrue(vm.Status.Conditions, resource.VMRunning, vm.Metadata.Generation) != nil {
			first(&tl.vmRunning, now)
		}
	})
	follow(resource.KindApp, "", func(obj resource.Object, now time.Time) {
		a := obj.(*resource.App)
		if isTrue(a.Status.Conditions, resource.AppContainerEngineReady, a.Metadata.Generation) != nil {
			first(&tl.engine, now)
		}
		if s := isTrue(a.Status.Conditions, resource.AppSettled, a.Metadata.Generation); s != nil && s.Reason == resource.ReasonRunning {
			first(&tl.settled, now)
		}
	})
	return tl
}

// stop ends the following.
func (tl *appTimeline) stop() {
	tl.cancel()
	tl.done.Wait()
}
