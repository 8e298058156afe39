package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/image"
	"paddock.dev/paddock/platform/service"
)

// serviceCommands are the subcommands of `paddock service` that install and
// control the daemon as an OS service.
func serviceCommands(c *cli) []*cobra.Command {
	return []*cobra.Command{
		newServiceInstallCmd(c),
		newServiceUninstallCmd(c),
		newServiceStartCmd(c),
		newServiceStopCmd(c),
		newServiceRestartCmd(c),
		newServiceStatusCmd(c),
		newServiceLogsCmd(c),
	}
}

func newServiceInstallCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	var userName, listen, img string
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the daemon as a service of the OS, started at login or boot",
		Long: `Install the instance's daemon ("paddock serve") as a service of the OS service
manager, enabled so that it starts with the user's session (a systemd user
unit, a LaunchAgent) or, with --system, at boot (a systemd system unit, a
LaunchDaemon) running as --user. On Windows it is a service of the service
control manager running as --user (default: you), whose password it reads
from ` + service.PasswordEnv + `.

Installing again updates the definition; a running service goes on with the
old one until "paddock service restart". Install does not start the service.`,
		Example: `  paddock service install && paddock service start
  sudo paddock service install --system --user alice
  paddock --instance dev service install --listen tcp://127.0.0.1:47610
  paddock service install --image ~/.cache/paddock/images/0d7694a9f8d6e23e`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := t.spec()
			if err != nil {
				return err
			}
			switch {
			case spec.Scope == service.System:
				if spec.UserName, err = systemUser(userName); err != nil {
					return err
				}
			case runtime.GOOS == "windows":
				spec.UserName = userName
			case userName != "":
				return usageError("--user names the account of a system service; add --system")
			}
			// Every flag passed to "paddock serve" is checked as serve
			// checks it, so that a bad value is refused now rather than
			// failing each start of the service.
			if listen != "" {
				if _, err := api.ParseListen(listen, 0); err != nil {
					return usageError("--listen: %v", err)
				}
			}
			spec.Listen = listen
			if img != "" {
				// The service starts elsewhere than this directory.
				if img, err = filepath.Abs(img); err != nil {
					return err
				}
				if _, err := image.Find(img, runtime.GOARCH); err != nil {
					return usageError("--image: %v", err)
				}
			}
			spec.Image = img
			// The level this command runs at is the daemon's too; the
			// default needs no flag.
			if level, _ := logging.ParseLevel(c.logLevel); level != slog.LevelInfo {
				spec.LogLevel = c.logLevel
			}
			if spec.Executable, err = buildinfo.Executable(); err != nil {
				return err
			}
			if runtime.GOOS != "linux" {
				paths, err := t.pathsFor(spec.UserName)
				if err != nil {
					return err
				}
				spec.LogFile = paths["log_file"]
			}
			svc, err := service.New(spec)
			if err != nil {
				return err
			}
			res, err := svc.Install()
			if err != nil {
				return serviceError(err)
			}
			what := "installed"
			switch {
			case !res.Created && res.Changed:
				what = "updated"
			case !res.Created:
				what = "already up to date"
			}
			fmt.Fprintf(c.stdout, "%s %s service %s: %s\n", what, spec.Scope, svc.Name(), res.Path)
			if res.Active && res.Changed && !res.Created {
				fmt.Fprintln(c.stdout, "the running service uses the new definition after: paddock service restart")
			} else if !res.Active {
				fmt.Fprintln(c.stdout, "start it with: paddock service start")
			}
			if res.Note != "" {
				fmt.Fprintln(c.stdout, "note: "+res.Note)
			}
			return nil
		},
	}
	t.addFlags(cmd)
	cmd.Flags().StringVar(&userName, "user", "", "the account a system service runs as, who owns the VMs (default: the user who ran sudo)")
	cmd.Flags().StringVar(&listen, "listen", "", "also serve the API on this address, e.g. tcp://127.0.0.1:PORT (passed to paddock serve)")
	cmd.Flags().StringVar(&img, "image", "", "the App's guest image, for a machine without a network: a built image directory or a disk image file (passed to paddock serve)")
	return cmd
}

func newServiceUninstallCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the service if it runs and remove it",
		Long: `Stop the instance's service if it runs (the daemon saves or stops every VM first),
disable it and remove its definition. Uninstalling a service that is not
installed does nothing and succeeds.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := t.open(cmd)
			if err != nil {
				return err
			}
			done, err := uninstallService(svc)
			if err != nil {
				return err
			}
			if done == "" {
				done = fmt.Sprintf("%s service %s is not installed; nothing to remove", svc.Scope(), svc.Name())
			}
			fmt.Fprintln(c.stdout, done)
			return nil
		},
	}
	t.addFlags(cmd)
	return cmd
}

// uninstallService stops svc if it runs, disables it and removes its
// definition, and says what it did; "" when it was not installed.
func uninstallService(svc *service.Service) (string, error) {
	err := svc.Uninstall()
	if errors.Is(err, service.ErrNotInstalled) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	// A unit of the package stays where it was (disabled): say so, as
	// status goes on showing it.
	st, err := svc.Status()
	if err != nil {
		return "", err
	}
	if st.Installed() {
		return fmt.Sprintf("stopped and disabled %s service %s; its unit %s belongs to the paddock package and stays (remove the package to remove it)",
			svc.Scope(), svc.Name(), st.Definition), nil
	}
	return fmt.Sprintf("uninstalled %s service %s", svc.Scope(), svc.Name()), nil
}

func newServiceStartCmd(c *cli) *cobra.Command {
	return newServiceRunCmd(c, "start", "Start the service and wait until its API is ready",
		func(svc *service.Service) error { return svc.Start() })
}

func newServiceRestartCmd(c *cli) *cobra.Command {
	return newServiceRunCmd(c, "restart", "Restart the service (VMs stop gracefully) and wait until its API is ready",
		func(svc *service.Service) error { return svc.Restart() })
}

// newServiceRunCmd is start or restart: run action, then wait until the
// daemon's API is ready unless told not to.
func newServiceRunCmd(c *cli, name, short string, action func(*service.Service) error) *cobra.Command {
	t := &serviceTarget{c: c}
	var timeout time.Duration
	var noWait bool
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout < 0 {
				return usageError("--timeout must be 0 (forever) or more, got %s", timeout)
			}
			svc, err := t.openWithLog(cmd)
			if err != nil {
				return err
			}
			started := time.Now()
			if err := action(svc); err != nil {
				return withDaemonLog(svc, started, err)
			}
			if noWait {
				st, err := svc.Status()
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "%s (%s service): %s\n", st.Name, st.Scope, st)
				return nil
			}
			r, err := t.waitReady(cmd.Context(), svc, timeout)
			if err != nil {
				return withDaemonLog(svc, started, err)
			}
			fmt.Fprintln(c.stdout, r)
			return nil
		},
	}
	t.addFlags(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to wait for the API; 0 waits forever (exit code 4 when it expires)")
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "return once the service manager has started the service")
	return cmd
}

// daemonLogLines is how many of the daemon's last lines a failed start
// shows.
const daemonLogLines = 10

// withDaemonLog adds to the error of a failed start what the daemon itself
// wrote since started, which usually says why it failed.
func withDaemonLog(svc *service.Service, started time.Time, err error) error {
	out := svc.RecentLog(started.Add(-time.Second), daemonLogLines)
	if out == "" {
		return err
	}
	return fmt.Errorf("%w\nthe daemon's last lines:\n%s", err, indentLines(out))
}

// indentLines prefixes every line of text for nesting it under an error.
func indentLines(text string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n  ")
}

func newServiceStopCmd(c *cli) *cobra.Command {
	t := &serviceTarget{c: c}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the service; the daemon saves or stops every VM first",
		Long: `Stop the instance's service. The service manager asks the daemon to stop
(SIGTERM; a stop control on Windows), the daemon ends every VM within its
bound (saving those a stop saves, for the next daemon to resume, and
stopping the others gracefully) and exits, and the command returns when it has.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := t.open(cmd)
			if err != nil {
				if started := c.startedDaemon(err.Error()); started != nil {
					return started
				}
				return err
			}
			if st, err := svc.Status(); err == nil && !st.Active() {
				if started := c.startedDaemon(fmt.Sprintf("the service %s is %s", st.Name, st)); started != nil {
					return started
				}
			}
			if err := svc.Stop(); err != nil {
				return err
			}
			st, err := svc.Status()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s (%s service): %s\n", st.Name, st.Scope, st)
			return nil
		},
	}
	t.addFlags(cmd)
	return cmd
}
