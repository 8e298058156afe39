package sshshim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

// limaScriptMark is in the remote command of every requirement script
// that Lima v1.2.2's host agent runs (ExecuteScript): the command is the
// script's interpreter, wrapped to export the cidata's param.env first,
// and the script itself comes on ssh's input.
const limaScriptMark = "/mnt/lima-cidata/param.env"

// bootDoneMark is in the script of the host agent's last requirement,
// which looks for the file boot.sh writes at its end every 3 seconds.
const bootDoneMark = "/run/lima-boot-done"

// bootWait bounds the shim's wait for boot.sh's end; past it the script
// runs as Lima wrote it, and looks for itself.
const bootWait = 2 * time.Minute

// runsLimaScript reports whether ssh's arguments run a requirement script
// of the host agent's: one remote command, Lima's wrapped interpreter.
func runsLimaScript(args []string) bool {
	return len(args) >= 2 && args[len(args)-2] == "--" && strings.Contains(args[len(args)-1], limaScriptMark)
}

// answerLastRequirement reads the host agent's script from the shim's
// input. When it is the last requirement's, it waits, for at most
// bootWait, until the console log at path shows that boot.sh ended, which
// boot.sh says only once it wrote the file the script looks for (it runs
// with set -e): the script would then succeed, and answered is true. The
// host agent learns it at once, where the script, which looks every 3
// seconds and runs sudo twice a look, made every cold boot seconds longer
// under emulation. Otherwise (another script, or a boot that failed or
// took longer) it gives the script back as the input the real ssh reads.
func answerLastRequirement(path string) (answered bool, err error) {
	script, err := io.ReadAll(os.Stdin)
	if err != nil {
		return false, fmt.Errorf("ssh shim: read the host agent's script: %w", err)
	}
	if bytes.Contains(script, []byte(bootDoneMark)) {
		ctx, cancel := context.WithTimeout(context.Background(), bootWait)
		w := &bootwatch.Console{Path: path}
		failed := ""
		bootwatch.PollUntil(ctx, func() bool {
			_, failed = w.Check()
			return failed != "" || w.BootDone()
		})
		cancel()
		if failed == "" && w.BootDone() {
			return true, nil
		}
	}
	return false, replaceStdin(script)
}

// replaceStdin makes data the shim's standard input, which the real ssh
// inherits: a file in memory, read from its start.
func replaceStdin(data []byte) error {
	fd, err := unix.MemfdCreate("paddock-ssh-stdin", 0)
	if err != nil {
		return fmt.Errorf("ssh shim: make the script's input: %w", err)
	}
	f := os.NewFile(uintptr(fd), "paddock-ssh-stdin")
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("ssh shim: write the script's input: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("ssh shim: rewind the script's input: %w", err)
	}
	if err := unix.Dup3(fd, 0, 0); err != nil {
		return fmt.Errorf("ssh shim: give the script to ssh: %w", err)
	}
	return nil
}
