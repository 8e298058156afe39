package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/resource"
)

// appProperty is a field of the App's spec that 'paddock set' takes: its
// path as the user writes it and how its value is read.
type appProperty struct {
	doc   string
	parse func(string) (any, error)
}

var appProperties = map[string]appProperty{
	"running": {"true or false", func(v string) (any, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean: use true or false", v)
		}
		return b, nil
	}},
	"containerEngine.name": {strings.Join(resource.Engines, " or "), func(v string) (any, error) {
		for _, e := range resource.Engines {
			if v == e {
				return v, nil
			}
		}
		return nil, fmt.Errorf("%q is not an engine: use %s", v, strings.Join(resource.Engines, " or "))
	}},
	"cpus": {"a whole number of CPUs", func(v string) (any, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a number of CPUs: use a whole number, 1 or more", v)
		}
		return n, nil
	}},
	"memory": {"a size such as 4GiB", parseSize},
	"disk":   {"a size such as 64GiB", parseSize},
	"mounts": {"host folders, FOLDER[:ro],... (empty for none)", parseMounts},
	"suspendWhenIdle": {"a duration such as 15m, at least 10s; 0 turns it off", func(v string) (any, error) {
		if _, err := resource.ParseSuspendWhenIdle(v); err != nil {
			return nil, err
		}
		return v, nil
	}},
	"mountType": {strings.Join(resource.MountTypes, " or "), func(v string) (any, error) {
		for _, t := range resource.MountTypes {
			if v == t {
				return v, nil
			}
		}
		return nil, fmt.Errorf("%q is not a mount type: use %s", v, strings.Join(resource.MountTypes, " or "))
	}},
}

func parseSize(v string) (any, error) {
	if _, err := resource.ParseSize(v); err != nil {
		return nil, err
	}
	return v, nil
}

func propertyNames() string {
	names := make([]string, 0, len(appProperties))
	for n := range appProperties {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// appSpecPatch reads PROPERTY=VALUE arguments into the App's spec fields,
// as a merge patch's spec; each mistake is named with what is valid.
func appSpecPatch(args []string) (map[string]any, error) {
	spec := map[string]any{}
	for _, arg := range args {
		key, value, ok := strings.Cut(arg, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not PROPERTY=VALUE: properties are %s", arg, propertyNames())
		}
		p, known := appProperties[key]
		switch {
		case key == "containerEngine":
			return nil, fmt.Errorf("containerEngine is an object: set containerEngine.name=%s", strings.Join(resource.Engines, "|"))
		case key == "namespace":
			return nil, fmt.Errorf("namespace cannot change: delete the App and create it anew to move it")
		case !known:
			return nil, fmt.Errorf("unknown property %q: properties are %s", key, propertyNames())
		}
		v, err := p.parse(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if key == "containerEngine.name" {
			spec["containerEngine"] = map[string]any{"name": v}
		} else {
			spec[key] = v
		}
	}
	return spec, nil
}

func newAppSetCmd(c *cli) *cobra.Command {
	var (
		f      appFlags
		dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "set PROPERTY=VALUE...",
		Short: "Change the App: running, containerEngine.name, cpus, memory, disk, mounts, mountType, suspendWhenIdle",
		Long: `Change the App's spec. A running VM restarts into new sizes or another
engine; 'set' waits until the App is Settled again (--wait=false does not).
Properties: running (true|false), containerEngine.name (moby|containerd),
cpus, memory and disk (sizes such as 4GiB; at most the host's CPUs and
memory), mounts (the host folders the VM shares at the same path, for
'docker run -v': absolute or ~/..., separated by commas, :ro for
read-only; the home folder by default; empty for none), mountType
(9p or reverse-sshfs, on QEMU) and suspendWhenIdle (a duration such as
15m, at least 10s: the App is suspended after that long without a client
of its engine, a running container or a login on a terminal in its VM,
and the next request to its engine, or a shell, wakes it; 0, the default,
never suspends it). With no App, one is made with these
values. --dry-run asks the daemon to check the change as it would make
it, and changes nothing: a change it would refuse exits 3 with the reason.`,
		Example: `  paddock set cpus=4 memory=4GiB
  paddock set mounts=~/src,/data:ro
  paddock set containerEngine.name=containerd
  paddock set suspendWhenIdle=15m
  paddock set --dry-run running=false`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := appSpecPatch(args)
			if err != nil {
				return withCode(exitRejected, err)
			}
			patch, err := json.Marshal(map[string]any{"spec": spec})
			if err != nil {
				return err
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			if dryRun {
				a, err := cl.DryRun().PatchApp(cmd.Context(), patch)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "app checked by the daemon, nothing changed (dry run): it would be %s, with %s\n",
					map[bool]string{true: "running", false: "stopped"}[a.Spec.Running], appSizes(a))
				return nil
			}
			app, err := cl.PatchApp(cmd.Context(), patch)
			if err != nil {
				return err
			}
			return c.settle(cmd.Context(), cl, app, f, "app changed")
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "have the daemon check the change, and make none")
	return cmd
}

// appSizes says the App's engine and sizes, for a person.
func appSizes(a *resource.App) string {
	return fmt.Sprintf("the %s engine, %d CPUs, %s memory, %s disk", a.Spec.ContainerEngine.Name, a.Spec.CPUs, a.Spec.Memory, a.Spec.Disk)
}
