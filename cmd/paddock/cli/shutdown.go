package cli

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api/client"
)

// shutdownTimeout bounds the wait for a daemon to stop its VMs and exit.
const shutdownTimeout = 3 * time.Minute

func newShutdownCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	cmd := &cobra.Command{
		Use:   "shutdown",
		Short: "Stop this instance's daemon, however it was started; its VMs are saved or stopped first",
		Long: `Stop the instance's daemon: through the service manager when it runs as a
service (as 'paddock service stop' does), otherwise by asking the process
the instance's pid file names to stop (SIGTERM), as a service stop does.
The daemon first ends every running VM as a stop would: it saves those a
stop saves, which the next daemon resumes, and stops the others gracefully;
the command returns once it exited. With no daemon running it says so and succeeds.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stopped, err := c.stopDaemon(cmd, t)
			if err != nil {
				return err
			}
			if stopped == "" {
				fmt.Fprintf(c.stdout, "no daemon runs for instance %s: nothing to stop\n", c.instance)
				return nil
			}
			fmt.Fprintln(c.stdout, stopped)
			return nil
		},
	}
	t.addFlags(cmd)
	return cmd
}

// stopDaemon stops the instance's daemon, through the service manager when
// it runs as a service, else by SIGTERM to the process the pid file names,
// and waits until it exited. It says what it stopped; "" when no daemon ran.
func (c *cli) stopDaemon(cmd *cobra.Command, t *serviceTarget) (string, error) {
	p, err := c.Paths()
	if err != nil {
		return "", err
	}
	if svc, err := t.open(cmd); err == nil {
		if st, err := svc.Status(); err == nil && st.Active() {
			if err := svc.Stop(); err != nil {
				return "", err
			}
			return fmt.Sprintf("stopped the %s service %s: its VMs stopped first", svc.Scope(), svc.Name()), nil
		}
	}
	pid := client.RecordedDaemon(p.PIDFile)
	if pid == 0 {
		return "", nil
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return "", err
	}
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		return "", fmt.Errorf("ask the daemon (pid %d) to stop: %w", pid, err)
	}
	deadline := time.Now().Add(shutdownTimeout)
	for client.RecordedDaemon(p.PIDFile) == pid {
		if time.Now().After(deadline) {
			return "", withCode(exitTimeout, fmt.Errorf("the daemon (pid %d) did not exit within %s; see %s", pid, shutdownTimeout, p.LogFile))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Sprintf("stopped the daemon of instance %s (pid %d): its VMs stopped first", p.Instance, pid), nil
}

// startedDaemon says, for a service command that finds no running
// service (why says what it found) while a daemon started by a paddock
// command holds the instance, how to stop that daemon; nil otherwise.
func (c *cli) startedDaemon(why string) error {
	p, err := c.Paths()
	if err != nil {
		return nil
	}
	if pid := client.RecordedDaemon(p.PIDFile); pid != 0 {
		return fmt.Errorf("%s; the daemon of instance %s that runs (pid %d) was started by a paddock command, not the service manager: stop it with 'paddock shutdown'",
			why, p.Instance, pid)
	}
	return nil
}
