package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/host"
)

// instanceState is one row of 'paddock list'.
type instanceState struct {
	Name   string `json:"name"`
	Daemon string `json:"daemon"` // running or stopped
	// App is the App's phase, "none" without one, "" when no daemon
	// answers to say.
	App    string `json:"app,omitempty"`
	Engine string `json:"engine,omitempty"`
	// Socket is the engine's socket on the host.
	Socket string `json:"socket,omitempty"`
	CPUs   int    `json:"cpus,omitempty"`
	Memory string `json:"memory,omitempty"`
	Disk   string `json:"disk,omitempty"`
	// APISocket is the daemon's.
	APISocket string `json:"apiSocket"`
}

// listProbeTimeout bounds how long one instance's daemon may take to answer.
const listProbeTimeout = 2 * time.Second

func newListCmd(c *cli) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every instance on this machine: its daemon, App, engine, socket and sizes",
		Long: `List every Paddock instance of this user on this machine (--instance and
` + instance.EnvName + ` select one): whether its daemon runs, and, from a
running daemon, its App's state, engine, engine socket and sizes. It starts
no daemon.`,
		Example: `  paddock list
  paddock list -o json | jq -r '.[] | select(.daemon == "running") | .name'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return usageError("unknown output format %q: use table or json", output)
			}
			roots, err := host.Current().Roots()
			if err != nil {
				return err
			}
			names, err := instance.List(roots)
			if err != nil {
				return err
			}
			rows := make([]instanceState, 0, len(names))
			for _, name := range names {
				p, err := instance.Resolve(roots, name)
				if err != nil {
					return err
				}
				rows = append(rows, probeInstance(cmd.Context(), p))
			}
			if output == "json" {
				enc := json.NewEncoder(c.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(rows) == 0 {
				c.printErr("No instances on this machine: 'paddock start' makes the default one.\n")
				return nil
			}
			w := tabwriter.NewWriter(c.stdout, 0, 4, 3, ' ', 0)
			fmt.Fprintln(w, "INSTANCE\tDAEMON\tAPP\tENGINE\tCPUS\tMEMORY\tDISK\tSOCKET")
			for _, r := range rows {
				cpus := ""
				if r.CPUs > 0 {
					cpus = fmt.Sprint(r.CPUs)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Daemon, dash(r.App), dash(r.Engine), dash(cpus), dash(r.Memory), dash(r.Disk), dash(r.Socket))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return cmd
}

// probeInstance asks the daemon of the instance p, if one answers, for
// its App.
func probeInstance(ctx context.Context, p instance.Paths) instanceState {
	r := instanceState{Name: p.Instance, Daemon: "stopped", APISocket: p.Socket}
	ctx, cancel := context.WithTimeout(ctx, listProbeTimeout)
	defer cancel()
	cl := client.NewUnix(p.Socket)
	if cl.Ready(ctx) != nil {
		return r
	}
	r.Daemon = "running"
	obj, err := cl.Get(ctx, resource.KindApp, "", resource.AppName)
	switch {
	case resource.IsNotFound(err):
		r.App = "none"
		return r
	case err != nil:
		r.App = "unknown: " + err.Error()
		return r
	}
	a := obj.(*resource.App)
	r.App, _ = a.PhaseAndCondition()
	r.Engine = a.Spec.ContainerEngine.Name
	r.Socket = resource.EngineSocket(p.ShortDir, r.Engine)
	r.CPUs, r.Memory, r.Disk = a.Spec.CPUs, a.Spec.Memory, a.Spec.Disk
	return r
}

// dash shows an empty cell as "-".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
