package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// snapshotTarget finds the VM a snapshot command works on and returns its
// namespace and name, and the arguments after it.
type snapshotTarget func(ctx context.Context, cl *client.Client, args []string) (ns, name string, rest []string, err error)

// newVMSnapshotCmd is `paddock vm snapshot ...`: VM is the first argument.
func newVMSnapshotCmd(c *cli) *cobra.Command {
	var sc scope
	target := func(_ context.Context, _ *client.Client, args []string) (string, string, []string, error) {
		return sc.ns(resource.KindVM), args[0], args[1:], nil
	}
	return newSnapshotCmd(c, "VM ", "a VM", target, func(cmd *cobra.Command) { sc.addFlags(cmd, false) },
		`  paddock vm snapshot create dev before-upgrade
  paddock vm snapshot list dev
  paddock vm snapshot apply dev before-upgrade
  paddock vm snapshot delete dev before-upgrade`)
}

// newAppSnapshotCmd is `paddock snapshot ...`, on the App's VM.
func newAppSnapshotCmd(c *cli) *cobra.Command {
	target := func(ctx context.Context, cl *client.Client, args []string) (string, string, []string, error) {
		a, err := getApp(ctx, cl)
		if err != nil {
			return "", "", nil, err
		}
		return a.Spec.Namespace, resource.AppVMName, args, nil
	}
	return newSnapshotCmd(c, "", "the App's VM", target, func(*cobra.Command) {},
		`  paddock snapshot create before-upgrade
  paddock snapshot list
  paddock snapshot apply before-upgrade`)
}

// newSnapshotCmd builds the snapshot command group; vmArg is "VM " when
// the VM is named on the command line, whose is what the commands say
// they work on.
func newSnapshotCmd(c *cli, vmArg, whose string, target snapshotTarget, addFlags func(*cobra.Command), example string) *cobra.Command {
	vmArgs := 0
	if vmArg != "" {
		vmArgs = 1
	}
	group := &cobra.Command{
		Use:   "snapshot",
		Short: "Take, list, apply and delete snapshots of " + whose,
		Long: `Snapshots of ` + whose + `, running or stopped. A snapshot of a running
VM holds its disk, memory and devices (the VM pauses while they are
written); of a stopped one, its disk. Applying one to a running VM
restores it live: it goes on running from that point. Only QEMU VMs have
snapshots, and only once they started once (before that they have no disk).
A running VM with host folders mounted over 9p cannot take one (QEMU
refuses): stop it first.`,
		Example: example,
		Args:    noArgs,
		RunE:    showHelp,
	}
	var output string
	list := &cobra.Command{
		Use:   "list " + vmArg,
		Short: "List the snapshots of " + whose + ": tag, size of the saved state, and time",
		Args:  exactArgs(vmArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch output {
			case "table", "json", "yaml":
			default:
				return usageError("unknown output format %q: use table, json or yaml", output)
			}
			cl, err := c.RunningClient(cmd.Context())
			if err != nil {
				return err
			}
			ns, name, _, err := target(cmd.Context(), cl, args)
			if err != nil {
				return err
			}
			snaps, err := cl.Snapshots(cmd.Context(), ns, name)
			if err != nil {
				return err
			}
			if output != "table" {
				return newPrinter(c.stdout, output, resource.KindVM, false).encode(resource.VMSnapshotList{APIVersion: resource.APIVersion, Kind: "VMSnapshotList", Items: snaps})
			}
			if len(snaps) == 0 {
				c.printErr("No snapshots of vm %s.\n", name)
				return nil
			}
			w := tabwriter.NewWriter(c.stdout, 0, 4, 3, ' ', 0)
			fmt.Fprintln(w, "TAG\tSIZE\tCREATED")
			for _, s := range snaps {
				created := s.Created
				fmt.Fprintf(w, "%s\t%s\t%s (%s ago)\n", s.Tag, humanBytes(s.Size), created.Local().Format(time.DateTime), age(&created))
			}
			return w.Flush()
		},
	}
	list.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or yaml")
	addFlags(list)

	create := &cobra.Command{
		Use:   "create " + vmArg + "TAG",
		Short: "Take a snapshot of " + whose + " (a TAG is 1 to 63 letters, digits, '.', '_' or '-')",
		Args:  exactArgs(vmArgs + 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ns, name, rest, err := target(cmd.Context(), cl, args)
			if err != nil {
				return err
			}
			s, err := cl.CreateSnapshot(cmd.Context(), ns, name, rest[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "snapshot %s of vm %s created (%s)\n", s.Tag, name, humanBytes(s.Size))
			return nil
		},
	}
	addFlags(create)

	var force bool
	changing := func(verb, short, lost string, do func(context.Context, *client.Client, string, string, string) error) *cobra.Command {
		cmd := &cobra.Command{
			Use:   verb + " " + vmArg + "TAG",
			Short: short,
			Long: short + `.

On a terminal the command asks first; --force (-f) does not ask, and
without a terminal --force is required.`,
			Args: exactArgs(vmArgs + 1),
			RunE: func(cmd *cobra.Command, args []string) error {
				tag := args[len(args)-1]
				what := "the App's VM"
				if vmArgs == 1 {
					what = "vm " + args[0]
				}
				if err := c.confirm(force, fmt.Sprintf("%s snapshot %s of %s", gerund(verb), tag, what), lost); err != nil {
					return err
				}
				cl, err := c.Client(cmd.Context())
				if err != nil {
					return err
				}
				ns, name, rest, err := target(cmd.Context(), cl, args)
				if err != nil {
					return err
				}
				if err := do(cmd.Context(), cl, ns, name, rest[0]); err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "snapshot %s of vm %s %s\n", rest[0], name, past(verb))
				return nil
			},
		}
		cmd.Flags().BoolVarP(&force, "force", "f", false, "do not ask first")
		addFlags(cmd)
		return cmd
	}
	apply := changing("apply", "Return "+whose+" to a snapshot, losing its current state (a running VM goes on running from the snapshot)",
		"the VM's current state (its disk, and its memory while it runs)",
		func(ctx context.Context, cl *client.Client, ns, name, tag string) error {
			return cl.ApplySnapshot(ctx, ns, name, tag)
		})
	del := changing("delete", "Delete a snapshot of "+whose, "the snapshot",
		func(ctx context.Context, cl *client.Client, ns, name, tag string) error {
			return cl.DeleteSnapshot(ctx, ns, name, tag)
		})
	group.AddCommand(create, list, apply, del)
	return group
}

func gerund(verb string) string {
	if verb == "apply" {
		return "applying"
	}
	return "deleting"
}

func past(verb string) string {
	if verb == "apply" {
		return "applied"
	}
	return "deleted"
}

// humanBytes prints n bytes in binary units, as QEMU does: 0 B, 312 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, units := float64(n)/unit, []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	if v >= 10 {
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
