package client_test

import (
	"context"
	"testing"

	"paddock.dev/paddock/api/client"
)

// Cold reaches the server with a start or a stop of a VM or of the App,
// and a start or stop without it asks for a save and a resume.
func TestActionsCarryCold(t *testing.T) {
	_, cl := newDaemon(t, 0)
	ctx := context.Background()
	mustCreate(t, cl, "dev")
	for _, step := range []struct {
		action string
		opts   []client.ActionOption
		cold   bool
	}{
		{"start", []client.ActionOption{client.Cold(true)}, true},
		{"stop", nil, false},
		{"stop", []client.ActionOption{client.Cold(true)}, true},
		{"start", []client.ActionOption{client.Cold(false)}, false},
	} {
		vm, err := cl.VMAction(ctx, "", "dev", step.action, client.NoWait, step.opts...)
		if err != nil || vm.Spec.Cold != step.cold {
			t.Fatalf("vm %s with %d options: %v, spec.cold %t; want %t", step.action, len(step.opts), err, vm.Spec.Cold, step.cold)
		}
		a, err := cl.AppAction(ctx, step.action, client.NoWait, step.opts...)
		if err != nil || a.Spec.Cold != step.cold {
			t.Fatalf("app %s with %d options: %v, spec.cold %t; want %t", step.action, len(step.opts), err, a.Spec.Cold, step.cold)
		}
	}
}
