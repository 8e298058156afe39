//go:build !darwin && !windows

package tray

import (
	"errors"
	"os/exec"
)

// terminalCandidates is where terminal looks on Linux and BSDs, in order:
// each program with the flag after which it takes a command line.
var terminalCandidates = [][2]string{
	{"x-terminal-emulator", "-e"}, // Debian's alternatives
	{"gnome-terminal", "--"},
	{"konsole", "-e"},
	{"xfce4-terminal", "-x"},
	{"xterm", "-e"},
}

// lookTerminal finds the first terminal program on PATH.
func lookTerminal() (string, string, error) {
	for _, c := range terminalCandidates {
		if path, err := exec.LookPath(c[0]); err == nil {
			return path, c[1], nil
		}
	}
	return "", "", errors.New("no terminal program found (looked for x-terminal-emulator, gnome-terminal, konsole, xfce4-terminal, xterm)")
}

// terminal returns the command that opens a terminal running argv.
func terminal(argv []string) (*exec.Cmd, error) {
	path, flag, err := lookTerminal()
	if err != nil {
		return nil, err
	}
	return exec.Command(path, append([]string{flag}, argv...)...), nil
}
