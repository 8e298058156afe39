package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
)

// instanceDir is where Lima keeps a VM's machine: its SSH configuration
// and its host agent's logs.
func (c *cli) instanceDir(name string) (string, error) {
	p, err := c.Paths()
	if err != nil {
		return "", err
	}
	return filepath.Join(p.LimaHome, name), nil
}

func newVMShellCmd(c *cli) *cobra.Command {
	var sc scope
	cmd := &cobra.Command{
		Use:   "shell NAME [COMMAND [ARG...]]",
		Short: "Open a shell in a running VM, or run a command there",
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
			obj, err := cl.Get(cmd.Context(), resource.KindVM, sc.ns(resource.KindVM), name)
			if err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(obj.(*resource.VM).Status.Conditions, resource.VMRunning) {
				return fmt.Errorf("vm %s is not running: start it with 'paddock vm start %s'", name, name)
			}
			dir, err := c.instanceDir(name)
			if err != nil {
				return err
			}
			sshArgs := []string{"-F", filepath.Join(dir, "ssh.config")}
			if len(args) == 1 {
				sshArgs = append(sshArgs, "-t")
			}
			sshArgs = append(sshArgs, "lima-"+name)
			if len(args) > 1 {
				sshArgs = append(sshArgs, "--", shellJoin(args[1:]))
			}
			ssh := exec.CommandContext(cmd.Context(), "ssh", sshArgs...)
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

// shellJoin quotes args for the guest's shell.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func newVMLogsCmd(c *cli) *cobra.Command {
	var follow, stdout bool
	cmd := &cobra.Command{
		Use:   "logs NAME",
		Short: "Print a VM's host agent log (--stdout: its events)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := c.instanceDir(args[0])
			if err != nil {
				return err
			}
			file := filepath.Join(dir, "ha.stderr.log")
			if stdout {
				file = filepath.Join(dir, "ha.stdout.log")
			}
			f, err := os.Open(file)
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("vm %s has no log yet: it was never started", args[0])
			}
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(c.stdout, f); err != nil || !follow {
				return err
			}
			return followFile(cmd.Context(), f, c.stdout)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is written")
	cmd.Flags().BoolVar(&stdout, "stdout", false, "the host agent's events instead of its log")
	return cmd
}

// followFile copies what is appended to f until ctx ends.
func followFile(ctx context.Context, f *os.File, w io.Writer) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
	}
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
			if _, err := cl.Patch(cmd.Context(), resource.KindVM, ns, args[0], patch, false); err != nil {
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
