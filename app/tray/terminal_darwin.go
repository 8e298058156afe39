package tray

import (
	"os/exec"
	"strconv"
	"strings"
)

// terminal returns the command that opens Terminal.app running argv.
func terminal(argv []string) (*exec.Cmd, error) {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := `tell application "Terminal" to do script ` + strconv.Quote(strings.Join(quoted, " "))
	return exec.Command("osascript", "-e", script, "-e", `tell application "Terminal" to activate`), nil
}
