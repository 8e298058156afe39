package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/dockercontext"
)

func newAppRunCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run COMMAND [ARG...]",
		Short: "Run a command with this instance's docker context (DOCKER_CONTEXT set, DOCKER_HOST cleared)",
		Long: `Run a command on the host against the App's engine: DOCKER_CONTEXT names
this instance's docker context and DOCKER_HOST is cleared, for the command
only; CONTAINERD_ADDRESS names the containerd socket. The command's exit
code is this one's.`,
		Example: `  paddock run docker ps
  paddock run -- docker run --rm busybox:offline echo hello`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := c.Paths()
			if err != nil {
				return err
			}
			var env []string
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); k != "DOCKER_HOST" && k != "DOCKER_CONTEXT" && k != "CONTAINERD_ADDRESS" {
					env = append(env, kv)
				}
			}
			env = append(env, "DOCKER_CONTEXT="+dockercontext.NameFor(p.Instance),
				"CONTAINERD_ADDRESS="+resource.EngineSocket(p.ShortDir, resource.EngineContainerd))
			child := exec.CommandContext(cmd.Context(), args[0], args[1:]...)
			child.Env, child.Stdin, child.Stdout, child.Stderr = env, os.Stdin, c.stdout, c.stderr
			return passExit(child.Run(), args[0])
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

func newAppCtrCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ctr [ARG...]",
		Short: "Run containerd's ctr in the App's VM, in the engine's namespace",
		Long: `Run containerd's own CLI, ctr, inside the App's VM as root, in the
namespace of the App's engine (moby for Docker, default for containerd).
A suspended App (suspendWhenIdle) is woken first. The command's exit code
is this one's.`,
		Example: `  paddock ctr images ls
  paddock ctr -- run --rm docker.io/library/busybox:offline t echo hello`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.inGuest(cmd, args, "ctr", ctrCommand)
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

func newAppNerdctlCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nerdctl [ARG...]",
		Short: "Run nerdctl in the App's VM, in the engine's namespace, where its image carries nerdctl",
		Long: `Run nerdctl inside the App's VM as root, in the namespace of the App's
engine (moby for Docker, default for containerd), as 'paddock ctr' runs
ctr. Debian's package sources have no nerdctl, so neither the built guest
image nor Debian's cloud image carries it: on those this says so and exits
1. A suspended App is woken first. The command's exit code is this one's.`,
		Example: `  paddock nerdctl ps -a`,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := c.inGuest(cmd, args, "nerdctl", nerdctlCommand)
			var coded *codedError
			if errors.As(err, &coded) && coded.code == exitNoTool {
				return errors.New("the App's guest image carries no nerdctl (Debian's package sources have none): use 'paddock ctr', or 'paddock run docker' with the moby engine")
			}
			return err
		},
	}
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// exitNoTool is the shell's exit code for a command it cannot find.
const exitNoTool = 127

// ctrCommand is the guest's command line of 'paddock ctr' in namespace ns.
func ctrCommand(ns string, args []string) []string {
	return append([]string{"sudo", "ctr", "-n", ns}, args...)
}

// nerdctlCommand is the guest's command line of 'paddock nerdctl' in
// namespace ns: it exits exitNoTool, saying nothing, where the guest has no
// nerdctl.
func nerdctlCommand(ns string, args []string) []string {
	script := `command -v nerdctl >/dev/null 2>&1 || exit 127; exec nerdctl --namespace "$0" "$@"`
	return append([]string{"sudo", "sh", "-c", script, ns}, args...)
}

// inGuest runs a tool of the App's VM over SSH in the namespace of the
// App's engine, with this terminal's input and output, and passes its exit
// code through. A suspended App is woken first.
func (c *cli) inGuest(cmd *cobra.Command, args []string, tool string, command func(ns string, args []string) []string) error {
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
	ns := "default"
	if a.Spec.ContainerEngine.Name == resource.EngineMoby {
		ns = "moby"
	}
	ssh, err := cl.AppShell(cmd.Context(), a.Spec.Namespace, command(ns, args))
	if err != nil {
		return err
	}
	ssh.Stdin, ssh.Stdout, ssh.Stderr = os.Stdin, c.stdout, c.stderr
	return passExit(ssh.Run(), tool)
}

// passExit makes a command's exit code this process's.
func passExit(err error, what string) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &codedError{code: exit.ExitCode(), err: fmt.Errorf("%s exited %d", what, exit.ExitCode())}
	}
	return err
}
