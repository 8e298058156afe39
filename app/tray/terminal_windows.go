package tray

import "os/exec"

// terminal returns the command that opens a console window running argv.
func terminal(argv []string) (*exec.Cmd, error) {
	return exec.Command("cmd.exe", startArgs(argv)...), nil
}
