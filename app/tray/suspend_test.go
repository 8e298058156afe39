package tray

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"paddock.dev/paddock/app/menu"
	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
)

// A suspended App reads Suspended in the tray, and Start wakes it: the
// suspension ends, and its spec stays as it was.
func TestStartFromTheMenuWakesASuspendedApp(t *testing.T) {
	f := newFixture(t)
	f.await("Stopped")
	ctx := context.Background()
	a, err := f.d.Client().PatchApp(ctx, []byte(`{"spec":{"running":true,"suspendWhenIdle":"15m"}}`))
	if err != nil {
		t.Fatal(err)
	}
	// As the App's controller suspends it.
	if _, err := f.d.Client().PatchApp(ctx, fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, resource.AnnotationSuspended, strconv.FormatInt(a.Metadata.Generation, 10))); err != nil {
		t.Fatal(err)
	}
	f.d.SetAppConditions(paddocktest.Condition(resource.AppCreated, "True", "Created", ""),
		paddocktest.Condition(resource.AppRunning, "False", resource.ReasonSuspended, "suspended after 15m"),
		paddocktest.Condition(resource.AppContainerEngineReady, "False", resource.ReasonSuspended, ""),
		paddocktest.Condition(resource.AppSettled, "True", resource.ReasonSuspended, ""))
	m := f.await("Suspended — the next Docker request wakes it")
	if !item(m, menu.LabelStart).Enabled || !item(m, menu.LabelStop).Enabled {
		t.Fatalf("Suspended: Start enabled %v, Stop enabled %v", item(m, menu.LabelStart).Enabled, item(m, menu.LabelStop).Enabled)
	}
	f.click(menu.LabelStart)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := f.app()
		if _, ok := got.Metadata.Annotations[resource.AnnotationSuspended]; !ok {
			if got.Metadata.Generation != a.Metadata.Generation || !got.Spec.Running {
				t.Fatalf("the wake changed the App's spec: generation %d (was %d), running %v", got.Metadata.Generation, a.Metadata.Generation, got.Spec.Running)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Start did not wake the suspended App")
		}
	}
}
