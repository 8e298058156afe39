package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// appFlags are the wait flags of the App's commands, and --cold of its
// start and stop.
type appFlags struct {
	waitFlags
	cold bool
}

// appTimeout is how long the App's commands wait by default: a boot of
// a VM under emulation, with its engine, takes a minute or more.
const appTimeout = 10 * time.Minute

func (f *appFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.wait, "wait", true, "wait until the App is Settled for this change (or failed)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", appTimeout, "how long to wait; 0 waits forever")
}

// appCommands are the App's top-level commands.
func appCommands(c *cli) []*cobra.Command {
	return []*cobra.Command{
		newAppStartCmd(c), newAppStopCmd(c), newAppSetCmd(c), newAppStatusCmd(c),
		newAppResetCmd(c), newAppRunCmd(c), newAppCtrCmd(c), newAppNerdctlCmd(c),
		newAppShellCmd(c), newAppSSHConfigCmd(c), newAppSnapshotCmd(c),
	}
}

func newAppStartCmd(c *cli) *cobra.Command {
	var f appFlags
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the App (its VM and container engine), creating it when missing",
		Long: `Start the App: its VM, and the container engine inside it, reachable from
the host through a socket in the instance's short directory and a docker
context named after the instance. The App is created with its defaults
when there is none ('paddock set' changes them). An App whose start
failed is tried again, once you have fixed the cause. Waits until the App is
Settled, or failed (exit 1), or --timeout ran out (exit 4).

` + coldStartHelp,
		Example: `  paddock start
  paddock start --cold`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			a, err := cl.AppAction(cmd.Context(), "start", client.NoWait, client.Cold(f.cold))
			if err != nil {
				return err
			}
			return c.settle(cmd.Context(), cl, a, f, "app started")
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.cold, "cold", false, coldFlagStart)
	return cmd
}

func newAppStopCmd(c *cli) *cobra.Command {
	var f appFlags
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the App's VM, saving its state for the next start to resume; with no App, do nothing",
		Long: `Stop the App's VM. Waits until the App is Settled, or failed (exit 1), or
--timeout ran out (exit 4). With no App, it does nothing.

` + coldStopHelp,
		Example: `  paddock stop
  paddock stop --cold`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			a, err := cl.AppAction(cmd.Context(), "stop", client.NoWait, client.Cold(f.cold))
			if resource.IsNotFound(err) {
				fmt.Fprintln(c.stdout, "there is no App: nothing to stop")
				return nil
			}
			if err != nil {
				return err
			}
			return c.settle(cmd.Context(), cl, a, f, "app stopped")
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.cold, "cold", false, coldFlagStop)
	return cmd
}

// settle waits, when asked, until the App settled after the change that
// made a, and says so: for a running App, how its VM started (resumed, or
// booted cold and why); for a stopped one, what its VM's Running
// condition says (whether its state is saved).
func (c *cli) settle(ctx context.Context, cl *client.Client, a *resource.App, f appFlags, done string) error {
	if !f.wait {
		fmt.Fprintf(c.stdout, "%s (not waiting)\n", done)
		return nil
	}
	a, err := c.waitApp(ctx, cl, a.Metadata.Generation, f.timeout)
	if err != nil {
		return err
	}
	msg := meta.FindStatusCondition(a.Status.Conditions, resource.AppSettled).Message
	running := meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)
	switch how := howStarted(running); {
	case how != "":
		msg += " (" + how + ")"
	case !a.Spec.Running && running != nil && running.Reason == resource.ReasonStopped && running.Message != "":
		msg = running.Message
	}
	fmt.Fprintf(c.stdout, "%s: %s\n", done, msg)
	return nil
}

// waitApp waits until the App settled at generation gen or later, showing
// where it is on the way.
func (c *cli) waitApp(ctx context.Context, cl *client.Client, gen int64, timeout time.Duration) (*resource.App, error) {
	prog := newProgress(c.stderr)
	defer prog.done()
	stop := prog.follow(ctx, cl, appWatched())
	defer stop("")
	a, err := cl.WaitApp(ctx, timeout)
	if err != nil {
		return nil, err
	}
	if a.Metadata.Generation < gen {
		return nil, fmt.Errorf("the App changed while waiting (generation %d, expected %d or later)", a.Metadata.Generation, gen)
	}
	return a, nil
}

func newAppResetCmd(c *cli) *cobra.Command {
	var f appFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Make the App's VM anew from its template (its disk, images and containers are lost)",
		Long: `Make the App's VM anew from its template: its disk goes, and with it every
image, container and volume of its engine. On a terminal the command asks
first; --force (-f) does not ask, and without a terminal --force is
required.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.confirm(force, "resetting the App", "the App's disk: every image, container and volume of its engine"); err != nil {
				return err
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			a, err := getApp(cmd.Context(), cl)
			if err != nil {
				return err
			}
			// The VM's own reset action waits until its machine is made
			// anew; the App then settles as usual.
			if _, err := cl.VMAction(cmd.Context(), a.Spec.Namespace, resource.AppVMName, "reset", f.await()); err != nil {
				return err
			}
			return c.settle(cmd.Context(), cl, a, f, "app reset")
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVarP(&force, "force", "f", false, "do not ask before the disk is lost")
	return cmd
}

// awakeApp reads the App and, when it is suspended (spec.suspendWhenIdle),
// wakes it as 'paddock start' does and waits until it settled, so that a
// command reaches its VM.
func (c *cli) awakeApp(ctx context.Context, cl *client.Client) (*resource.App, error) {
	a, err := getApp(ctx, cl)
	if err != nil {
		return nil, err
	}
	if _, suspended := a.Metadata.Annotations[resource.AnnotationSuspended]; !suspended || !a.Spec.Running {
		return a, nil
	}
	fmt.Fprintln(c.stderr, "The App is suspended; waking it")
	if a, err = cl.AppAction(ctx, "start", client.NoWait); err != nil {
		return nil, err
	}
	return c.waitApp(ctx, cl, a.Metadata.Generation, appTimeout)
}

// getApp reads the App, saying how to make one when there is none.
func getApp(ctx context.Context, cl *client.Client) (*resource.App, error) {
	obj, err := cl.Get(ctx, resource.KindApp, "", resource.AppName)
	if resource.IsNotFound(err) {
		return nil, fmt.Errorf("there is no App: 'paddock start' makes one")
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}
