package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/dockercontext"
)

// statusView is what 'paddock status' shows: the instance's daemon and
// its App, as text or, with -o json|yaml, as this structure.
type statusView struct {
	Instance string      `json:"instance"`
	Daemon   daemonState `json:"daemon"`
	// App is nil when there is none (or no daemon to ask).
	App *appState `json:"app"`
}

// daemonState says whether the instance's daemon answers, and which it is.
type daemonState struct {
	Running bool   `json:"running"`
	Version string `json:"version,omitempty"`
	Socket  string `json:"socket"`
}

// appState is the App as 'paddock status' shows it.
type appState struct {
	// Status is the App's phase, with the reason and message of the
	// condition it was read from (appStatus).
	Status string `json:"status"`
	// VMState says what the VM's Running condition says (runningLine):
	// how it last started (resumed, or booted cold and why), or, stopped,
	// whether its state is saved.
	VMState     string `json:"vmState"`
	Phase       string `json:"phase"`
	Wanted      string `json:"wanted"`
	Engine      string `json:"engine"`
	Socket      string `json:"socket"`
	Context     string `json:"context,omitempty"`
	CPUs        int    `json:"cpus"`
	Memory      string `json:"memory"`
	Disk        string `json:"disk"`
	Accelerator string `json:"accelerator,omitempty"`
	// SuspendWhenIdle is the App's spec.suspendWhenIdle, "" when off.
	SuspendWhenIdle string `json:"suspendWhenIdle,omitempty"`
	// Shared says which host folders the VM shares (sharedFolders).
	Shared     string             `json:"shared"`
	VM         vmRef              `json:"vm"`
	Conditions []metav1.Condition `json:"conditions"`

	app *resource.App
}

type vmRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func newAppStatusCmd(c *cli) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the daemon and the App on one screen: state, reason, engine, socket, sizes, accelerator",
		Long: `Show the instance's daemon and its App: the App's state and why, its engine
and the socket and docker context that reach it, its sizes and the
accelerator its VM runs with. It never starts a daemon: with none running
it says "Daemon: not running" and exits 1. -o json and -o yaml print the
same as a document.`,
		Example: `  paddock status
  paddock status -o json | jq -r .app.phase`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" && output != "yaml" {
				return usageError("unknown output format %q: use text, json or yaml", output)
			}
			p, err := c.Paths()
			if err != nil {
				return err
			}
			v := statusView{Instance: p.Instance, Daemon: daemonState{Socket: p.Socket}}
			cl, err := c.RunningClient(cmd.Context())
			switch {
			case isNoDaemon(err):
			case err != nil:
				return err
			default:
				if err := v.read(cmd.Context(), cl, p); err != nil {
					return err
				}
			}
			if err := v.print(c.stdout, output); err != nil {
				return err
			}
			if !v.Daemon.Running {
				return quietExit(exitError)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	return cmd
}

// read fills v from the running daemon cl of the instance p.
func (v *statusView) read(ctx context.Context, cl *client.Client, p instance.Paths) error {
	info, err := cl.Version(ctx)
	if err != nil {
		return err
	}
	v.Daemon.Running, v.Daemon.Version = true, info.Version
	obj, err := cl.Get(ctx, resource.KindApp, "", resource.AppName)
	if resource.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	a := obj.(*resource.App)
	phase, _ := a.PhaseAndCondition()
	engine := a.Spec.ContainerEngine.Name
	s := &appState{
		Status: appStatus(a), VMState: runningLine(meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)), Phase: phase,
		Wanted: map[bool]string{true: "running", false: "stopped"}[a.Spec.Running],
		Engine: engine, Socket: resource.EngineSocket(p.ShortDir, engine),
		CPUs: a.Spec.CPUs, Memory: a.Spec.Memory, Disk: a.Spec.Disk,
		VM:         vmRef{Namespace: a.Spec.Namespace, Name: resource.AppVMName},
		Conditions: a.Status.Conditions,
		app:        a,
	}
	if engine == resource.EngineMoby {
		s.Context = dockercontext.NameFor(p.Instance)
	}
	if a.Spec.IdleTimeout() > 0 {
		s.SuspendWhenIdle = a.Spec.SuspendWhenIdle
	}
	var vm *resource.VM
	vmObj, err := cl.Get(ctx, resource.KindVM, a.Spec.Namespace, resource.AppVMName)
	switch {
	case err == nil:
		if vm = vmObj.(*resource.VM); vm.Phase() == resource.PhaseRunning {
			s.Accelerator = vm.Status.Accelerator
		}
	case !resource.IsNotFound(err):
		return err
	}
	if s.Shared, err = sharedFolders(ctx, cl, a, vm); err != nil {
		return err
	}
	v.App = s
	return nil
}

func (v *statusView) print(w io.Writer, output string) error {
	switch output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	line := func(k, v string) { fmt.Fprintf(w, "%-13s%s\n", k+":", v) }
	older := func(c *metav1.Condition) string {
		if c != nil && !resource.ConditionCurrent(c, v.App.app.Metadata.Generation) {
			return " [for an older change]"
		}
		return ""
	}
	if !v.Daemon.Running {
		line("Daemon", fmt.Sprintf("not running (nothing answers on %s); 'paddock start' starts it and the App", v.Daemon.Socket))
		return nil
	}
	line("Daemon", fmt.Sprintf("running, version %s, on %s", v.Daemon.Version, v.Daemon.Socket))
	s := v.App
	if s == nil {
		line("App", "none: 'paddock start' makes one")
		return nil
	}
	a := s.app
	state := func(t string) string {
		cond := meta.FindStatusCondition(a.Status.Conditions, t)
		if cond == nil {
			return "unknown yet"
		}
		out := fmt.Sprintf("%s (%s)", cond.Status, cond.Reason)
		if cond.Message != "" {
			out += ": " + cond.Message
		}
		return out + older(cond)
	}
	line("Status", s.Status)
	line("Settled", state(resource.AppSettled))
	line("Wanted", s.Wanted)
	line("Running", s.VMState+older(meta.FindStatusCondition(a.Status.Conditions, resource.AppRunning)))
	line("Engine", s.Engine+": "+state(resource.AppContainerEngineReady))
	line("Socket", s.Socket)
	if s.Context != "" {
		line("Context", s.Context+" (or: paddock run docker ...)")
	}
	line("Sizes", fmt.Sprintf("%d CPUs, %s memory, %s disk", s.CPUs, s.Memory, s.Disk))
	accel := "unknown until it runs"
	switch s.Accelerator {
	case "":
	case "tcg":
		accel = "tcg (emulation: slow)"
	default:
		accel = s.Accelerator
	}
	line("Shared", s.Shared)
	line("Idle", idleLine(s))
	line("Accelerator", accel)
	line("VM", fmt.Sprintf("vm %s in namespace %s ('paddock shell')", s.VM.Name, s.VM.Namespace))
	return nil
}

// idleLine says whether and when the App is suspended when idle.
func idleLine(s *appState) string {
	switch {
	case s.SuspendWhenIdle == "":
		return "never suspended ('paddock set suspendWhenIdle=15m' suspends it after 15 minutes idle)"
	}
	engine := resource.EngineTitle(s.Engine)
	return "suspended after " + s.SuspendWhenIdle + " without a " + engine + " client or a running container; the next " + engine + " request wakes it"
}

// appStatus is the App's phase, as 'paddock get apps' and the tray read it
// (resource.App.PhaseAndCondition), with the reason and message of the
// condition it was read from.
func appStatus(a *resource.App) string {
	phase, c := a.PhaseAndCondition()
	if c == nil {
		return phase
	}
	s := fmt.Sprintf("%s (%s %s)", phase, c.Type, c.Reason)
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}
