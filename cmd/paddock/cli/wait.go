package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

func newWaitCmd(c *cli) *cobra.Command {
	var sc scope
	var forCond, reason string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait KIND/NAME --for=condition=TYPE[=STATUS] | --for=delete",
		Short: "Wait until an object meets a condition, or is gone",
		Long: `Wait until an object has the condition TYPE with STATUS (True unless
given) for its current generation, optionally with --reason; or, with
--for=delete, until it is gone. An object that does not exist yet is waited
for. Exit code 4 says the timeout ran out; --timeout=0 waits forever.`,
		Example: `  paddock wait vm/dev --for=condition=Running --timeout=10m
  paddock wait vm/dev --for=condition=Running=False --reason=Stopped
  paddock wait configmap/demo --for=delete`,
		Args:              rangeArgs(1, 2),
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, name, err := kindNameArg(args)
			if err != nil {
				return err
			}
			cond, err := parseFor(forCond, reason)
			if err != nil {
				return err
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			if err := waitFor(cmd.Context(), cl, k, sc.ns(k), name, cond, timeout); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s/%s %s\n", k.Singular(), name, cond.met)
			return nil
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().StringVar(&forCond, "for", "", "condition=TYPE[=STATUS] or delete")
	cmd.Flags().StringVar(&reason, "reason", "", "also require the condition's reason")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait; 0 waits forever")
	return cmd
}

// waitCond is what a wait waits for.
type waitCond struct {
	met   string // says what was met, for the success line
	gone  bool
	check func(resource.Object) (ok bool, state string)
}

func gone() waitCond { return waitCond{met: "deleted", gone: true} }

// parseFor reads --for and --reason.
func parseFor(forCond, reason string) (waitCond, error) {
	if forCond == "delete" {
		if reason != "" {
			return waitCond{}, usageError("--reason goes with --for=condition=..., not --for=delete")
		}
		return gone(), nil
	}
	spec, ok := strings.CutPrefix(forCond, "condition=")
	if !ok || spec == "" {
		return waitCond{}, usageError("--for must be condition=TYPE[=STATUS] or delete, got %q", forCond)
	}
	typ, status, hasStatus := strings.Cut(spec, "=")
	if !hasStatus {
		status = string(metav1.ConditionTrue)
	}
	switch metav1.ConditionStatus(status) {
	case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
	default:
		return waitCond{}, usageError("condition status must be True, False or Unknown, got %q", status)
	}
	met := "condition met: " + typ + "=" + status
	if reason != "" {
		met += " (" + reason + ")"
	}
	return waitCond{met: met, check: func(obj resource.Object) (bool, string) {
		c := meta.FindStatusCondition(conditionsOf(obj), typ)
		if c == nil {
			return false, "no " + typ + " condition yet"
		}
		state := fmt.Sprintf("%s=%s reason %s", c.Type, c.Status, c.Reason)
		if c.Message != "" {
			state += ": " + c.Message
		}
		// A condition observed for an older generation says nothing about
		// the spec as it is now.
		if c.ObservedGeneration != 0 && c.ObservedGeneration < obj.GetMeta().Generation {
			return false, state + " (for an older generation)"
		}
		return string(c.Status) == status && (reason == "" || c.Reason == reason), state
	}}, nil
}

func conditionsOf(obj resource.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *resource.VM:
		return o.Status.Conditions
	case *resource.App:
		return o.Status.Conditions
	}
	return nil
}

// waitFor watches one object until cond holds, timeout passes (exit 4), or
// ctx ends.
func waitFor(ctx context.Context, cl *client.Client, k *resource.Kind, ns, name string, cond waitCond, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ref := k.Singular() + "/" + name
	last := "it does not exist yet"
	timedOut := func() error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			what := cond.met
			if !cond.gone {
				what = strings.TrimPrefix(what, "condition met: ")
			}
			return &resource.Error{Reason: resource.ReasonTimeout,
				Message: fmt.Sprintf("timed out after %s waiting for %s (%s); last seen: %s", timeout, ref, what, last)}
		}
		return ctx.Err()
	}
	opts := client.ListOptions{FieldSelector: "metadata.name=" + name}
	listed := false // the object was in the fresh list being read
	err := cl.Follow(ctx, k, ns, opts, func(ev client.Event) (bool, error) {
		switch {
		case ev.Type == "BOOKMARK":
			// A fresh list without the object: it is not there.
			absent := ev.Listing && !listed
			listed = false
			return cond.gone && absent, nil
		case ev.Type == "DELETED":
			last = "it was deleted"
			return cond.gone, nil
		}
		listed = ev.Listing
		last = "it exists"
		if cond.check == nil {
			return false, nil
		}
		ok, state := cond.check(ev.Object)
		last = state
		return ok, nil
	})
	if err != nil && ctx.Err() != nil {
		return timedOut()
	}
	return err
}
