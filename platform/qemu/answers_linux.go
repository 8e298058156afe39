package qemu

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"paddock.dev/paddock/core/atomicfile"
)

// A question is a QEMU run that only prints what QEMU can do and exits:
// `--version`, or an option whose value is help (`-accel help`, `-cpu help
// -machine q35`). Lima v1.2.2 asks five of them before every start and
// resume, each through the wrapper: 0.8 s on a 2-core host. The wrapper
// answers them from a cache in $PADDOCK_QEMU_ANSWERS, one file a question,
// kept while the QEMU binary (path, size, modification time) and the host's
// boot are the same (probeKey), as the KVM probe's answer is.
// A guest's run, which always names a pid file, is never one.
func isQuestion(args []string) bool {
	if slices.Contains(args, "-pidfile") {
		return false
	}
	if len(args) == 1 && args[0] == "--version" {
		return true
	}
	for i := 1; i < len(args); i++ {
		if args[i] == "help" && len(args[i-1]) > 1 && args[i-1][0] == '-' {
			return true
		}
	}
	return false
}

// answer is what one QEMU binary said to one question.
type answer struct {
	Key    string   `json:"key"`
	Args   []string `json:"args"`
	Stdout []byte   `json:"stdout"`
	Stderr []byte   `json:"stderr"`
}

// ask answers the question args to the QEMU at real from the cache in dir,
// or runs QEMU and keeps its answer there when it exits 0; it writes the
// answer to stdout and stderr and returns QEMU's exit code. A cache that
// cannot be read or written costs only QEMU's run.
func ask(real string, args []string, dir string, stdout, stderr io.Writer) (int, error) {
	key, err := probeKey(real)
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256([]byte(key + "\x00" + strings.Join(args, "\x00")))
	file := filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
	if b, err := os.ReadFile(file); err == nil {
		var a answer
		if json.Unmarshal(b, &a) == nil && a.Key == key && slices.Equal(a.Args, args) {
			if _, err := stdout.Write(a.Stdout); err != nil {
				return 0, err
			}
			_, err := stderr.Write(a.Stderr)
			return 0, err
		}
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command(real, args...)
	cmd.Stdout = io.MultiWriter(stdout, &out)
	cmd.Stderr = io.MultiWriter(stderr, &errOut)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), nil
		}
		return 0, err
	}
	a := answer{Key: key, Args: args, Stdout: out.Bytes(), Stderr: errOut.Bytes()}
	if b, err := json.Marshal(a); err == nil && os.MkdirAll(dir, 0o700) == nil {
		_ = atomicfile.WriteFile(file, b, 0o600) // the next start asks QEMU again
	}
	return 0, nil
}
