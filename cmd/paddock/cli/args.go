package cli

import (
	"github.com/spf13/cobra"
)

// Argument checks that fail with the usage exit code, unlike cobra's own.

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if cmd.HasSubCommands() {
			return usageError("unknown command %q for %q; see '%s --help'", args[0], cmd.CommandPath(), cmd.CommandPath())
		}
		return usageError("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s needs %d argument(s), got %d; usage: %s", cmd.CommandPath(), n, len(args), cmd.UseLine())
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError("%s needs at least %d argument(s); usage: %s", cmd.CommandPath(), n, cmd.UseLine())
		}
		return nil
	}
}

func rangeArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || len(args) > max {
			return usageError("%s needs %d to %d arguments, got %d; usage: %s", cmd.CommandPath(), min, max, len(args), cmd.UseLine())
		}
		return nil
	}
}

// showHelp is the RunE of commands that only group others, so that an
// unknown subcommand fails with the usage exit code instead of printing help.
func showHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }
