package cli

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/image"
)

// vmFlags are the flags every waiting vm command shares.
type vmFlags struct {
	scope
	waitFlags
	quiet bool // no progress while waiting for a VM to run
}

func (f *vmFlags) add(cmd *cobra.Command) {
	f.addFlags(cmd, false)
	cmd.Flags().BoolVar(&f.wait, "wait", true, "wait until the VM got there (or failed)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Minute, "how long to wait; 0 waits forever")
}

// addQuiet adds --quiet to a command that shows a VM's progress.
func (f *vmFlags) addQuiet(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "show no progress while the VM starts")
}

// showProgress shows, on stderr, the VM ns/name's way to running until the
// returned stop is called with the VM the wait ended with (nil when it
// ended without one), unless f asks for quiet.
func (c *cli) showProgress(ctx context.Context, cl *client.Client, f vmFlags, ns, name string) (stop func(*resource.VM)) {
	if f.quiet || !f.wait {
		return func(*resource.VM) {}
	}
	prog := newProgress(c.stderr)
	end := prog.follow(ctx, cl, vmWatched(ns, name))
	return func(v *resource.VM) {
		rv := ""
		if v != nil {
			rv = v.Metadata.ResourceVersion
		}
		end(rv)
		prog.done()
	}
}

// warnEmulated says, for a VM that runs, when it runs under emulation.
func (c *cli) warnEmulated(v *resource.VM) {
	if v.Phase() == resource.PhaseRunning && v.Status.Accelerator == "tcg" {
		c.printErr("Warning: vm %s runs under emulation (tcg), without hardware acceleration, so it is slow ('paddock doctor' says why).\n", v.Metadata.Name)
	}
}

func newVMCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vm",
		Short: "Create, run and reach VMs",
		Args:  noArgs,
		RunE:  showHelp,
	}
	cmd.AddCommand(
		newVMCreateCmd(c),
		newVMListCmd(c),
		newVMGetCmd(c),
		newVMActionCmd(c, "start", "Start a VM, resuming its saved state, and wait until it runs; a VM whose start failed is tried again"),
		newVMActionCmd(c, "stop", "Stop a VM, saving its state for the next start to resume, and wait until it stopped"),
		newVMActionCmd(c, "restart", "Restart a VM and wait until it runs again"),
		newVMActionCmd(c, "reset", "Make a VM's machine anew from its template (its disk is lost)"),
		newVMDeleteCmd(c),
		newVMShellCmd(c),
		newVMSSHConfigCmd(c),
		newVMLogsCmd(c),
		newVMParamsCmd(c),
		newVMTemplateCmd(c),
		newVMSnapshotCmd(c),
	)
	return cmd
}

func newVMCreateCmd(c *cli) *cobra.Command {
	var f vmFlags
	var template, templateName string
	var params []string
	var start bool
	cmd := &cobra.Command{
		Use:   "create NAME [--template FILE|CONFIGMAP]",
		Short: "Create a VM from a Lima template, or from the guest image the App boots",
		Long: `Create a VM from a Lima template: a lima.yaml file, or the name of a
ConfigMap that holds one under its 'template' key. Without --template the
VM boots the guest image the App boots (` + image.EnvImage + `, else the newest
image built on this host, else Debian's published image, downloaded by
Lima unless 'paddock start' already did), from a template stored in the
ConfigMap guest-image (printed by 'paddock vm template'). A file is stored in a
ConfigMap named after it (or --template-name); one that holds another
template which a VM uses, or which you made, is never changed: the file
goes to debian-2 (and so on) instead, as the output says, or, with
--template-name, the command refuses and names the VMs. A ConfigMap made
this way is deleted with the last VM that uses it. --param KEY=VALUE sets
a field over the template (KEY in lima.yaml's structure, VALUE as YAML).
The template is checked before anything is stored; a bad one exits 3
and names the field, by file and line.`,
		Example: `  paddock vm create dev --start
  paddock vm create dev --template ./debian.yaml --start
  paddock vm create big --template debian --param cpus=4 --param memory=8GiB`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := parseParams(params)
			if err != nil {
				return err
			}
			var imageTemplate []byte
			if template == "" {
				if imageTemplate, err = guestImageTemplate(); err != nil {
					return err
				}
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ns := f.ns(resource.KindVM)
			var ref string
			var stored *storedTemplate
			if template == "" {
				stored = &storedTemplate{ns: ns, file: guestImageFile, data: imageTemplate}
				err = stored.store(cmd.Context(), cl, templateName)
				ref = stored.name
			} else {
				ref, stored, err = templateRef(cmd.Context(), cl, ns, template, templateName)
			}
			if err != nil {
				return err
			}
			vm := &resource.VM{
				TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindVM.Name},
				Metadata: resource.ObjectMeta{Name: args[0], Namespace: ns},
				Spec:     resource.VMSpec{TemplateRef: ref, Params: p, Running: start},
			}
			if _, err := cl.Create(cmd.Context(), vm); err != nil {
				if stored != nil {
					return stored.rejected(cmd.Context(), cl, err)
				}
				return err
			}
			if stored != nil {
				stored.report(c)
			}
			fmt.Fprintf(c.stdout, "vm/%s created\n", args[0])
			if !f.wait {
				return nil
			}
			if !start {
				_, err := c.waitVM(cmd.Context(), cl, ns, args[0], resource.VMCreated, f.timeout)
				return err
			}
			stop := c.showProgress(cmd.Context(), cl, f, ns, args[0])
			v, err := c.waitVM(cmd.Context(), cl, ns, args[0], resource.VMRunning, f.timeout)
			stop(v)
			if err == nil {
				c.warnEmulated(v)
			}
			return err
		},
	}
	f.add(cmd)
	f.addQuiet(cmd)
	cmd.Flags().StringVarP(&template, "template", "t", "", "lima.yaml file, or a ConfigMap holding one (default: the guest image the App boots)")
	cmd.Flags().StringVar(&templateName, "template-name", "", "the ConfigMap to store a template file in (default: named after the file)")
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil, "KEY=VALUE set over the template (repeatable)")
	cmd.Flags().BoolVar(&start, "start", false, "start the VM once created")
	return cmd
}

// guestImageFile names the template of the guest image the App boots, as
// 'vm create' without --template stores it: in the ConfigMap guest-image.
const guestImageFile = "guest-image.yaml"

// guestImageTemplate is the Lima template of a VM that boots the guest
// image the App boots on this host.
func guestImageTemplate() ([]byte, error) {
	src, err := image.Find(os.Getenv(image.EnvImage), runtime.GOARCH)
	if err != nil {
		return nil, err
	}
	return image.SourceTemplate(src)
}

// waitVM follows a VM until its condition t is True; a failed create,
// start or stop ends the wait with the condition's message.
func (c *cli) waitVM(ctx context.Context, cl *client.Client, ns, name, t string, timeout time.Duration) (*resource.VM, error) {
	v, err := cl.WaitVM(ctx, ns, name, t, timeout)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.stdout, "vm/%s condition met: %s=True\n", name, t)
	return v, nil
}

// parseParams reads KEY=VALUE params, VALUE as YAML, KEY dotted into
// lima.yaml's structure (containerd.system=false).
func parseParams(kvs []string) (map[string]any, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageError("param %q is not KEY=VALUE", kv)
		}
		var value any
		if err := yaml.Unmarshal([]byte(v), &value); err != nil {
			return nil, usageError("param %s: %q is not a YAML value: %v", k, v, err)
		}
		m := out
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = value
	}
	return out, nil
}

func newVMListCmd(c *cli) *cobra.Command {
	var sc scope
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List VMs",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cl, err := c.RunningClient(cmd.Context())
			if err != nil {
				return err
			}
			vms, _, err := cl.List(cmd.Context(), resource.KindVM, sc.ns(resource.KindVM), client.ListOptions{})
			if err != nil {
				return err
			}
			if len(vms) == 0 && (output == "table" || output == "wide") {
				c.printErr("No VMs found.\n")
				return nil
			}
			return newPrinter(c.stdout, output, resource.KindVM, sc.allNamespaces).list(vms)
		},
	}
	sc.addFlags(cmd, true)
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: "+outputFormats)
	return cmd
}

func newVMGetCmd(c *cli) *cobra.Command {
	var sc scope
	var output string
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a VM, its state and why",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cl, err := c.RunningClient(cmd.Context())
			if err != nil {
				return err
			}
			obj, err := cl.Get(cmd.Context(), resource.KindVM, sc.ns(resource.KindVM), args[0])
			if err != nil {
				return err
			}
			vm := obj.(*resource.VM)
			if err := newPrinter(c.stdout, output, resource.KindVM, false).one(vm); err != nil {
				return err
			}
			if output == "table" || output == "wide" {
				c.warnEmulated(vm)
			}
			return nil
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().StringVarP(&output, "output", "o", "wide", "output format: "+outputFormats)
	return cmd
}

// vmColdHelp is the help of the VM actions that take --cold: their long
// help and the flag's.
var vmColdHelp = map[string][2]string{
	"start": {"Start a VM and wait until it runs; a VM whose start failed is tried again.\n\n" + coldStartHelp, coldFlagStart},
	"stop":  {"Stop a VM gracefully and wait until it stopped.\n\n" + coldStopHelp, coldFlagStop},
}

func newVMActionCmd(c *cli, action, short string) *cobra.Command {
	var f vmFlags
	var cold bool
	starts := action == "start" || action == "restart"
	help, takesCold := vmColdHelp[action]
	cmd := &cobra.Command{
		Use:   action + " NAME",
		Short: short,
		Long:  help[0],
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ns := f.ns(resource.KindVM)
			stop := func(*resource.VM) {}
			if starts {
				stop = c.showProgress(cmd.Context(), cl, f, ns, args[0])
			}
			var opts []client.ActionOption
			if takesCold {
				opts = append(opts, client.Cold(cold))
			}
			vm, err := cl.VMAction(cmd.Context(), ns, args[0], action, f.await(), opts...)
			stop(vm)
			if err != nil {
				return err
			}
			if f.wait {
				if err := client.VMFailed(vm); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.stdout, "vm/%s %s%s\n", args[0], pastTense(action, f.wait), vmOutcome(vm, action, f.wait))
			if f.wait && starts {
				c.warnEmulated(vm)
			}
			return nil
		},
	}
	f.add(cmd)
	if starts {
		f.addQuiet(cmd)
	}
	if takesCold {
		cmd.Flags().BoolVar(&cold, "cold", false, help[1])
	}
	return cmd
}

// vmOutcome says, after an action waited for, how the VM started
// (" (resumed)", " (cold boot: WHY)") or, stopped, what its Running
// condition says of it (whether its state is saved): "" when there is
// nothing to say.
func vmOutcome(vm *resource.VM, action string, waited bool) string {
	if !waited {
		return ""
	}
	running := meta.FindStatusCondition(vm.Status.Conditions, resource.VMRunning)
	if how := howStarted(running); how != "" {
		return " (" + how + ")"
	}
	if action == "stop" && running != nil && running.Reason == resource.ReasonStopped && running.Message != "" {
		return ": " + running.Message
	}
	return ""
}

func pastTense(action string, waited bool) string {
	if !waited {
		return action + " requested"
	}
	return map[string]string{"start": "running", "stop": "stopped", "restart": "restarted", "reset": "reset"}[action]
}

func newVMDeleteCmd(c *cli) *cobra.Command {
	var f vmFlags
	cmd := &cobra.Command{
		Use:   "delete NAME...",
		Short: "Delete VMs: their machines, disks and template copies",
		Args:  minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ns := f.ns(resource.KindVM)
			for _, name := range args {
				if _, err := cl.Delete(cmd.Context(), resource.KindVM, ns, name); err != nil {
					return err
				}
				if f.wait {
					if _, err := cl.Wait(cmd.Context(), resource.KindVM, ns, name, client.UntilGone(), f.timeout); err != nil {
						return err
					}
				}
				fmt.Fprintf(c.stdout, "vm/%s deleted\n", name)
			}
			return nil
		},
	}
	f.add(cmd)
	return cmd
}
