package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Argument checks that fail with the usage exit code, unlike cobra's own.

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if cmd.HasSubCommands() {
			msg := fmt.Sprintf("unknown command %q for %q; see '%s --help'", args[0], cmd.CommandPath(), cmd.CommandPath())
			if cmd.SuggestionsMinimumDistance <= 0 {
				cmd.SuggestionsMinimumDistance = 2 // cobra's own default
			}
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return usageError("%s", msg)
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
