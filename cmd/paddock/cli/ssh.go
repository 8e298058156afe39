package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/dockercontext"
)

func newAppShellCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shell [-- COMMAND [ARG...]]",
		Short: "Open a shell in the App's VM, or run a command there",
		Long: `Open a login shell in the App's VM, or run a command there, over ssh with
the parameters the daemon hands out. The command's exit code is this one's.
A suspended App (suspendWhenIdle) is woken first, and the App is not
suspended while the shell or the command runs. 'paddock ssh-config'
prints the same as an OpenSSH Host block, for ssh and editors.`,
		Example: `  paddock shell
  paddock shell -- uname -a`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			a, err := c.awakeApp(cmd.Context(), cl)
			if err != nil {
				return err
			}
			ssh, err := cl.AppShell(cmd.Context(), a.Spec.Namespace, args)
			if err != nil {
				return err
			}
			ssh.Stdin, ssh.Stdout, ssh.Stderr = os.Stdin, c.stdout, c.stderr
			return passExit(ssh.Run(), "the command in the App's VM")
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

func newAppSSHConfigCmd(c *cli) *cobra.Command {
	var host string
	cmd := &cobra.Command{
		Use:   "ssh-config",
		Short: "Print an OpenSSH Host block that reaches the App's VM",
		Long: `Print an OpenSSH configuration block for the App's running VM, named
paddock (paddock-INSTANCE for other instances; --host names it), so that
ssh, scp, rsync and editors' remote-SSH reach it. The port changes with
each start of the VM: print it again after one.`,
		Example: `  ssh -F <(paddock ssh-config) paddock
  paddock ssh-config >> ~/.ssh/config`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			if host == "" {
				host = dockercontext.NameFor(p.Instance)
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			a, err := getApp(cmd.Context(), cl)
			if err != nil {
				return err
			}
			return printSSHConfig(cmd.Context(), c.stdout, cl, a.Spec.Namespace, resource.AppVMName, host)
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "the Host name of the block (default: paddock, or paddock-INSTANCE)")
	return cmd
}

func newVMSSHConfigCmd(c *cli) *cobra.Command {
	var sc scope
	var host string
	cmd := &cobra.Command{
		Use:   "ssh-config NAME",
		Short: "Print an OpenSSH Host block that reaches a running VM",
		Long: `Print an OpenSSH configuration block for a running VM, named after it
(--host names it otherwise), so that ssh, scp, rsync and editors'
remote-SSH reach it. The port changes with each start of the VM: print it
again after one.`,
		Example: `  ssh -F <(paddock vm ssh-config dev) dev`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if host == "" {
				host = args[0]
			}
			cl, err := c.Client(cmd.Context())
			if err != nil {
				return err
			}
			return printSSHConfig(cmd.Context(), c.stdout, cl, sc.ns(resource.KindVM), args[0], host)
		},
	}
	sc.addFlags(cmd, false)
	cmd.Flags().StringVar(&host, "host", "", "the Host name of the block (default: the VM's name)")
	return cmd
}

// printSSHConfig writes the Host block host for the running VM ns/name.
func printSSHConfig(ctx context.Context, w io.Writer, cl *client.Client, ns, name, host string) error {
	if strings.ContainsAny(host, " \t\"*?!") || host == "" {
		return usageError("--host %q cannot name an ssh Host: use letters, digits, dots and dashes", host)
	}
	p, err := cl.SSH(ctx, ns, name)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, sshConfig(host, p))
	return err
}

// sshConfig is the OpenSSH configuration block named host that reaches
// the machine p describes, as ssh_config(5) reads it: the daemon's ssh
// options (KEY=VALUE) become KEY VALUE lines.
func sshConfig(host string, p resource.VMSSH) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Host %s\n", host)
	fmt.Fprintf(&b, "  HostName %s\n", p.Host)
	fmt.Fprintf(&b, "  Port %s\n", strconv.Itoa(p.Port))
	fmt.Fprintf(&b, "  User %s\n", p.User)
	fmt.Fprintf(&b, "  IdentityFile %q\n", p.IdentityFile)
	for _, o := range p.Options {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "  %s %s\n", k, v)
	}
	return b.String()
}
