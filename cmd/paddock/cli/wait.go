package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/api/client"
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
--for=delete, until it is gone. A condition counts for the current
generation unless its observedGeneration is older (0, not stamped, counts). An object that does not exist yet is waited
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
			if _, err := cl.Wait(cmd.Context(), k, sc.ns(k), name, cond.until, timeout); err != nil {
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

// waitCond is what a wait waits for, and what to say once it is met.
type waitCond struct {
	met   string
	until client.Until
}

// parseFor reads --for and --reason.
func parseFor(forCond, reason string) (waitCond, error) {
	if forCond == "delete" {
		if reason != "" {
			return waitCond{}, usageError("--reason goes with --for=condition=..., not --for=delete")
		}
		return waitCond{met: "deleted", until: client.UntilGone()}, nil
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
	var reasons []string
	if reason != "" {
		reasons = []string{reason}
	}
	until := client.UntilCondition(typ, metav1.ConditionStatus(status), reasons...)
	return waitCond{met: "condition met: " + until.String(), until: until}, nil
}

// waitFlags are --wait and --timeout of the commands that act and then
// wait (each command adds them with its own help text).
type waitFlags struct {
	wait    bool
	timeout time.Duration
}

// await is what the flags ask of an action's answer.
func (f *waitFlags) await() client.Await {
	if !f.wait {
		return client.NoWait
	}
	return client.WaitAtMost(f.timeout)
}
