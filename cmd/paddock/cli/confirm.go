package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

// confirm asks the person at the terminal whether to go on with a change
// that loses what lost names, unless force says they already agreed.
// Without a terminal to ask on it refuses with the usage exit code, naming
// --force, so that a script never destroys data by accident; "no" (or
// anything but yes) ends the command with exit code 1 and nothing done.
func (c *cli) confirm(force bool, action, lost string) error {
	if force {
		return nil
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return usageError("%s loses %s; without a terminal to ask on, pass --force (-f) to confirm", action, lost)
	}
	fmt.Fprintf(c.stderr, "%s loses %s.\nContinue? [y/N] ", action, lost)
	answer, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && answer == "" {
		fmt.Fprintln(c.stderr)
		return errors.New("no answer: nothing was changed")
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return errors.New("not confirmed: nothing was changed")
}
