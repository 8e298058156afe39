package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"paddock.dev/paddock/app/autostart"
	"paddock.dev/paddock/core/buildinfo"
)

func newTrayCmd(c *cli) *cobra.Command {
	var atLogin string
	var settingsWindow bool
	cmd := &cobra.Command{
		Use:   "tray",
		Short: "Show Paddock in the desktop's system tray",
		Long: `Show Paddock in the desktop's system tray: the App's state, Start, Stop,
Settings and the VMs, from a menu. The tray is a client of the daemon's API
like this CLI; quitting it leaves the VMs running. It follows the daemon as
it stops and starts, and offers to start it when it is not running.

Settings… opens the settings window, a process of its own (paddock tray
--settings, which the tray starts): it needs a paddock built with cgo and
the tray tag (CGO_ENABLED=1 go build -tags tray); the menu does not.

--autostart on makes the desktop start the tray at login (an XDG autostart
file on Linux, a LaunchAgent on macOS, the Run key on Windows); off undoes
it. Either only sets that up and exits.`,
		Example: `  paddock tray &
  paddock tray --autostart on`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("autostart") {
				return c.trayAutostart(atLogin)
			}
			if settingsWindow {
				return c.runTraySettings(cmd)
			}
			return c.runTray(cmd)
		},
	}
	cmd.Flags().StringVar(&atLogin, "autostart", "", "on: start the tray at login; off: do not")
	cmd.Flags().BoolVar(&settingsWindow, "settings", false, "show only the settings window, talking to the tray that started it on stdin and stdout")
	_ = cmd.Flags().MarkHidden("settings")
	cmd.MarkFlagsMutuallyExclusive("autostart", "settings")
	_ = cmd.RegisterFlagCompletionFunc("autostart", cobra.FixedCompletions([]string{"on", "off"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// trayAutostart installs (on) or removes (off) the tray's start at login.
func (c *cli) trayAutostart(value string) error {
	if value != "on" && value != "off" {
		return usageError("--autostart takes on or off, not %q", value)
	}
	if _, err := c.Paths(); err != nil { // validates the instance name
		return err
	}
	exe, err := buildinfo.Executable()
	if err != nil {
		return err
	}
	e := autostart.Entry{Executable: exe, Instance: c.instance}
	if value == "off" {
		where, _, err := autostart.Remove(e)
		if err != nil {
			return fmt.Errorf("remove the tray's start at login: %w", err)
		}
		fmt.Fprintf(c.stdout, "the tray no longer starts at login (%s removed)\n", where)
		return nil
	}
	where, err := autostart.Install(e)
	if err != nil {
		return fmt.Errorf("set up the tray's start at login: %w", err)
	}
	fmt.Fprintf(c.stdout, "the tray starts at login: %s\n", where)
	return nil
}
