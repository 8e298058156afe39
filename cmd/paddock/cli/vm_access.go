package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

func newVMShellCmd(c *cli) *cobra.Command {
	var sc scope
	cmd := &cobra.Command{
		Use:   "shell NAME [COMMAND [ARG...]]",
		Short: "Open a shell in a running VM, or run a command there",
		Long: `Open a shell in a running VM, or run a command there, over ssh with the
parameters the daemon hands out. The command's exit code is this one's.`,
		Example: `  paddock vm shell dev
  paddock vm shell dev uname -a
  paddock vm shell dev -- ls -l /`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			// Flags end at NAME; a "--" after it only marks where the
			// command begins, as in kubectl exec.
			if len(args) > 1 && args[1] == "--" {
				args = append(args[:1], args[2:]...)
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ssh, err := cl.Shell(cmd.Context(), sc.ns(resource.KindVM), name, args[1:])
			if err != nil { // a VM not running is a Conflict that says how to start it
				return err
			}
			ssh.Stdin, ssh.Stdout, ssh.Stderr = os.Stdin, c.stdout, c.stderr
			err = ssh.Run()
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				// The command's own exit code, as ssh reports it.
				return &codedError{code: exit.ExitCode(), err: fmt.Errorf("the command in vm %s exited %d", name, exit.ExitCode())}
			}
			return err
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().SetInterspersed(false)
	return cmd
}

func newVMLogsCmd(c *cli) *cobra.Command {
	var sc scope
	var follow bool
	var stream string
	cmd := &cobra.Command{
		Use:   "logs NAME",
		Short: "Print a VM's host agent log, its events, or the guest's console",
		Long: `Print one of a VM's logs, read through the daemon: --stream stderr (the
default) is the host agent's log, stdout its events (JSON lines), serial
the guest's console. --follow keeps printing what is written until
interrupted.`,
		Example: `  paddock vm logs dev
  paddock vm logs dev --stream serial -f`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(resource.VMLogStreams(), resource.VMLogStream(stream)) {
				return usageError("--stream must be stderr, stdout or serial, got %q", stream)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cl, err := c.RunningClient(ctx)
			if err != nil {
				return err
			}
			r, err := cl.Logs(ctx, sc.ns(resource.KindVM), args[0], client.LogOptions{Stream: resource.VMLogStream(stream), Follow: follow})
			if err != nil {
				return err
			}
			defer r.Close()
			_, err = io.Copy(c.stdout, r)
			if ctx.Err() != nil {
				return nil // interrupted while following: that is how it ends
			}
			return err
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is written")
	cmd.Flags().StringVar(&stream, "stream", string(resource.VMLogHostAgent), "which log: stderr (host agent), stdout (its events) or serial (the guest's console)")
	return cmd
}

func newVMParamsCmd(c *cli) *cobra.Command {
	var sc scope
	var unset []string
	cmd := &cobra.Command{
		Use:   "params NAME [KEY=VALUE...]",
		Short: "Show a VM's params, or set them (a running VM restarts with them)",
		Example: `  paddock vm params dev
  paddock vm params dev cpus=4 memory=4GiB
  paddock vm params dev --unset cpus`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			ns := sc.ns(resource.KindVM)
			if len(args) == 1 && len(unset) == 0 {
				obj, err := cl.Get(cmd.Context(), resource.KindVM, ns, args[0])
				if err != nil {
					return err
				}
				data, err := yaml.Marshal(obj.(*resource.VM).Spec.Params)
				if err != nil {
					return err
				}
				_, err = c.stdout.Write(data)
				return err
			}
			params, err := parseParams(args[1:])
			if err != nil {
				return err
			}
			patchParams := map[string]any{}
			for k, v := range params {
				patchParams[k] = v
			}
			for _, k := range unset {
				patchParams[k] = nil
			}
			patch, err := json.Marshal(map[string]any{"spec": map[string]any{"params": patchParams}})
			if err != nil {
				return err
			}
			if _, err := cl.Patch(cmd.Context(), resource.KindVM, ns, args[0], patch); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "vm/%s params updated\n", args[0])
			return nil
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().StringArrayVar(&unset, "unset", nil, "remove a param (repeatable)")
	return cmd
}
