package client_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// A dry-run client's writes are checked by the daemon and stored not; its
// actions are refused.
func TestADryRunClientWritesNothing(t *testing.T) {
	ctx := context.Background()
	d, cl := newDaemon(t, 0)
	dry := cl.DryRun()
	a, err := dry.PatchApp(ctx, []byte(`{"spec":{"cpus":1}}`))
	if err != nil || a.Spec.CPUs != 1 {
		t.Fatalf("dry PatchApp with no App: %v %+v", err, a)
	}
	if _, err := cl.Get(ctx, resource.KindApp, "", resource.AppName); !resource.IsNotFound(err) {
		t.Fatalf("a dry PatchApp made an App: %v", err)
	}
	if _, err := cl.PatchApp(ctx, []byte(`{"spec":{"cpus":1}}`)); err != nil {
		t.Fatal(err)
	}
	_, err = dry.PatchApp(ctx, fmt.Appendf(nil, `{"spec":{"cpus":%d}}`, runtime.NumCPU()+1))
	if resource.ReasonOf(err) != resource.ReasonInvalid {
		t.Fatalf("dry PatchApp beyond the host's CPUs: %v", err)
	}
	if _, err := dry.Delete(ctx, resource.KindApp, "", resource.AppName); err != nil {
		t.Fatal(err)
	}
	if _, err := dry.AppAction(ctx, "start", client.NoWait); err == nil {
		t.Fatal("a dry-run client ran an action")
	}
	obj, err := d.store.Get(ctx, resource.Key{Kind: "App", Name: "app"})
	if err != nil || obj.GetMeta().Terminating() || obj.GetMeta().Generation != 1 {
		t.Fatalf("dry writes changed the App: %v %+v", err, obj)
	}
}
