package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// scope holds the namespace flags of commands that address objects.
type scope struct {
	namespace     string
	allNamespaces bool
}

func (s *scope) addFlags(cmd *cobra.Command, withAll bool) {
	cmd.Flags().StringVarP(&s.namespace, "namespace", "n", resource.DefaultNamespace, "namespace of the objects")
	if withAll {
		cmd.Flags().BoolVarP(&s.allNamespaces, "all-namespaces", "A", false, "objects in every namespace")
	}
}

// ns returns the namespace to address for kind k: none for the App, none
// with -A.
func (s *scope) ns(k *resource.Kind) string {
	if !k.Namespaced || s.allNamespaces {
		return ""
	}
	return s.namespace
}

// kindArg resolves a kind argument for a command.
func kindArg(s string) (*resource.Kind, error) {
	k, err := resource.LookupKind(s)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return k, nil
}

// kindNameArg resolves KIND/NAME, or KIND NAME from two arguments. The App
// needs no name.
func kindNameArg(args []string) (*resource.Kind, string, error) {
	var kindS, name string
	switch {
	case len(args) == 1 && strings.Contains(args[0], "/"):
		kindS, name, _ = strings.Cut(args[0], "/")
	case len(args) == 1:
		kindS = args[0]
	case len(args) == 2:
		kindS, name = args[0], args[1]
	default:
		return nil, "", usageError("name one object as KIND/NAME or KIND NAME")
	}
	k, err := kindArg(kindS)
	if err != nil {
		return nil, "", err
	}
	if !k.Namespaced && name == "" {
		name = resource.AppName
	}
	if name == "" {
		return nil, "", usageError("name the %s: %s/NAME", k.Singular(), k.Singular())
	}
	return k, name, nil
}

func completeKinds(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, k := range resource.Kinds() {
		out = append(out, k.Plural)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func newGetCmd(c *cli) *cobra.Command {
	var sc scope
	var output, selector string
	var watch bool
	cmd := &cobra.Command{
		Use:   "get KIND [NAME] | KIND/NAME",
		Short: "Show objects: app, vms, configmaps",
		Example: `  paddock get vms -A
  paddock get configmap demo -o yaml
  paddock get vms -l team=web --watch`,
		Args:              rangeArgs(1, 2),
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if strings.Contains(args[0], "/") {
				if len(args) > 1 {
					return usageError("name the object once: KIND/NAME or KIND NAME")
				}
				args = strings.SplitN(args[0], "/", 2)
			}
			k, err := kindArg(args[0])
			if err != nil {
				return err
			}
			cl, err := c.RunningClient(cmd.Context())
			if err != nil {
				return err
			}
			pr := newPrinter(c.stdout, output, k, sc.allNamespaces)
			opts := client.ListOptions{LabelSelector: selector}
			if len(args) == 2 {
				opts.FieldSelector = "metadata.name=" + args[1]
			}
			if watch {
				return watchPrint(cmd.Context(), cl, k, sc.ns(k), opts, pr)
			}
			if len(args) == 2 || !k.Namespaced {
				name := resource.AppName
				if len(args) == 2 {
					name = args[1]
				}
				obj, err := cl.Get(cmd.Context(), k, sc.ns(k), name)
				if err != nil {
					return err
				}
				return pr.one(obj)
			}
			objs, _, err := cl.List(cmd.Context(), k, sc.ns(k), opts)
			if err != nil {
				return err
			}
			if len(objs) == 0 && output != "json" && output != "yaml" {
				where := "in namespace " + sc.namespace
				if sc.allNamespaces {
					where = "in any namespace"
				}
				c.printErr("No %s found %s.\n", k.Plural, where)
				return nil
			}
			return pr.list(objs)
		},
	}
	sc.addFlags(cmd, true)
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: "+outputFormats)
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "label selector, e.g. team=web,tier!=db")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "after listing, print each change as it happens")
	return cmd
}

// watchPrint prints the current objects and then every change until
// interrupted.
func watchPrint(ctx context.Context, cl *client.Client, k *resource.Kind, ns string, opts client.ListOptions, pr *printer) error {
	err := cl.Follow(ctx, k, ns, opts, func(ev client.Event) (bool, error) {
		if ev.Type == "BOOKMARK" {
			return false, nil
		}
		return false, pr.one(ev.Object)
	})
	if ctx.Err() != nil {
		return nil // interrupted: the normal end of a watch
	}
	return err
}
