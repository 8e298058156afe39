package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

func newDeleteCmd(c *cli) *cobra.Command {
	var sc scope
	var wait, force bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "delete [KIND NAME... | KIND/NAME...]",
		Short: "Delete objects (the App when none is named), waiting until they are gone",
		Long: `Delete objects. An object with finalizers stays, Terminating, until its
controllers have cleaned up; by default the command waits for that
(--wait=false returns at once; --timeout bounds the wait, 0 is forever, and
exit code 4 says it ran out). An object owned by another is refused, with
the owner's name.

Deleting the App or a VM loses its disk, and with the App's its images,
containers and volumes: on a terminal the command asks first; --force
(-f) does not ask, and without a terminal --force is required.`,
		Example: `  paddock delete                  # the App: its VM, disk and templates
  paddock delete vm dev
  paddock delete configmap/a configmap/b`,
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{resource.KindApp.Singular(), resource.AppName}
			}
			targets, err := deleteTargets(args)
			if err != nil {
				return err
			}
			if lost := lostByDelete(targets); lost != "" {
				if err := c.confirm(force, "deleting "+targetNames(targets), lost); err != nil {
					return err
				}
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			for _, t := range targets {
				ns := sc.ns(t.kind)
				obj, err := cl.Delete(cmd.Context(), t.kind, ns, t.name)
				if err != nil {
					return err
				}
				ref := t.kind.Singular() + "/" + t.name
				m := obj.GetMeta()
				if !m.Terminating() {
					fmt.Fprintf(c.stdout, "%s deleted\n", ref)
					continue
				}
				if !wait {
					fmt.Fprintf(c.stdout, "%s marked for deletion; waiting for finalizers: %s\n", ref, strings.Join(m.Finalizers, ", "))
					continue
				}
				if _, err := cl.Wait(cmd.Context(), t.kind, ns, t.name, client.UntilGone(), timeout); err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "%s deleted\n", ref)
			}
			return nil
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().BoolVar(&wait, "wait", true, "wait until each object is gone")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait for each object; 0 waits forever")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "do not ask before deleting the App or a VM")
	return cmd
}

// lostByDelete says what deleting targets loses for good, for the
// question asked first; "" when nothing but the objects themselves.
func lostByDelete(targets []target) string {
	var app, vms bool
	for _, t := range targets {
		app = app || t.kind == resource.KindApp
		vms = vms || t.kind == resource.KindVM
	}
	switch {
	case app && vms:
		return "the App's VM and the VMs' disks, with every image, container and volume in them"
	case app:
		return "the App's VM and its disk: every image, container and volume of its engine"
	case vms:
		return "the VMs' disks and everything on them"
	}
	return ""
}

// targetNames names targets as KIND/NAME, for a person.
func targetNames(targets []target) string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.kind.Singular() + "/" + t.name
		if t.kind == resource.KindApp {
			names[i] = "the App"
		}
	}
	return strings.Join(names, ", ")
}

type target struct {
	kind *resource.Kind
	name string
}

// deleteTargets reads KIND NAME... or KIND/NAME... arguments.
func deleteTargets(args []string) ([]target, error) {
	var out []target
	if !strings.Contains(args[0], "/") {
		k, err := kindArg(args[0])
		if err != nil {
			return nil, err
		}
		names := args[1:]
		if len(names) == 0 && !k.Namespaced {
			names = []string{resource.AppName}
		}
		if len(names) == 0 {
			return nil, usageError("name the %s objects to delete", k.Singular())
		}
		for _, n := range names {
			out = append(out, target{k, n})
		}
		return out, nil
	}
	for _, a := range args {
		k, name, err := kindNameArg([]string{a})
		if err != nil {
			return nil, err
		}
		out = append(out, target{k, name})
	}
	return out, nil
}
