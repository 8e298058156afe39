package lima

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"paddock.dev/paddock/core/logging"
)

// HelperName is paddock-lima, the program that runs the parts of Lima
// whose packages the daemon does not link (see platform/lima/limaexec):
// the host agent, the cloud-init checks of a template, and creating,
// preparing, deleting and force-stopping instances. Keeping them out of
// the daemon's binary keeps their package initialisers, and the pages of
// the binary those touch, out of the idle daemon.
const HelperName = "paddock-lima"

// helperFile is HelperName's file name on this OS.
func helperFile() string {
	if runtime.GOOS == "windows" {
		return HelperName + ".exe"
	}
	return HelperName
}

// The helper's exit codes: HelperExitInvalid for a template Lima rejects,
// HelperExitFailed for any other failure. Either way its standard output
// holds one HelperFailure.
const (
	HelperExitFailed  = 1
	HelperExitInvalid = 3
)

// The kinds of HelperFailure.
const (
	FailureInvalid = "invalid" // a *ValidationError, its problems listed
	FailureError   = "error"   // any other error, its message in Message
)

// HelperFailure is how paddock-lima reports a failure, as JSON on its
// standard output, so that the driver returns it typed: a rejected
// template as a *ValidationError naming the fields, anything else as an
// error with the helper's message.
type HelperFailure struct {
	Kind     string    `json:"kind"`
	Message  string    `json:"message"`
	Problems []Problem `json:"problems,omitempty"`
}

// ReportFailure writes err to w as a HelperFailure and returns the exit
// code the helper ends with.
func ReportFailure(w io.Writer, err error) int {
	f, code := HelperFailure{Kind: FailureError, Message: err.Error()}, HelperExitFailed
	var ve *ValidationError
	if errors.As(err, &ve) {
		f.Kind, f.Problems, code = FailureInvalid, ve.Problems, HelperExitInvalid
	}
	if err := json.NewEncoder(w).Encode(f); err != nil {
		fmt.Fprintln(os.Stderr, "paddock-lima:", f.Message)
	}
	return code
}

// helperDirs are where FindHelper looks, in order, for the paddock binary
// exe (and the file it points to, when it is a symlink): beside it (a
// build tree, an unpacked archive), then where the packages put it,
// ../lib/paddock and ../libexec/paddock, as for the guest agent.
func helperDirs(exe string) []string {
	var dirs []string
	for _, e := range exeAndTarget(exe) {
		dirs = append(dirs, filepath.Dir(e))
	}
	return append(dirs, guestAgentDirs(exe)...)
}

// FindHelper returns the path of paddock-lima for the paddock executable
// exe, or an error naming every place it looked.
func FindHelper(exe string) (string, error) {
	p, looked := findInHelperDirs(exe, helperFile())
	if p != "" {
		return p, nil
	}
	return "", fmt.Errorf("%s, which creates, starts and deletes VMs, is missing: looked for %s; install it beside %s (it is built from ./cmd/paddock/paddock-lima)",
		HelperName, strings.Join(looked, ", "), filepath.Base(exe))
}

// findInHelperDirs returns the first file named file in helperDirs(exe),
// or "", and the paths it looked at before.
func findInHelperDirs(exe, file string) (string, []string) {
	var looked []string
	for _, dir := range helperDirs(exe) {
		p := filepath.Clean(filepath.Join(dir, file))
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, looked
		}
		looked = append(looked, p)
	}
	return "", looked
}

// helper is the path of paddock-lima: Helper, or else the one FindHelper
// finds for Executable.
func (d *Driver) helper() (string, error) {
	if d.Helper != "" {
		return d.Helper, nil
	}
	return FindHelper(d.Executable)
}

// runHelper runs `paddock-lima ARGS...` with stdin on its standard input
// and LIMA_HOME in its environment, relays its log to the driver's logger
// and returns its failure typed (see HelperFailure).
func (d *Driver) runHelper(ctx context.Context, stdin []byte, args ...string) error {
	_, err := d.runHelperOutput(ctx, stdin, args...)
	return err
}

// runHelperOutput is runHelper that returns what the helper printed on
// its standard output when it succeeded.
func (d *Driver) runHelperOutput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	helper, err := d.helper()
	if err != nil {
		return nil, err
	}
	args = append([]string{args[0], "--log-level", minLevel(d.Logger).String()}, args[1:]...)
	cmd := exec.CommandContext(ctx, helper, args...)
	cmd.Env = append(os.Environ(), EnvLimaHome+"="+d.LimaHome)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", HelperName, err)
	}
	var tail []string
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !relayLog(ctx, d.Logger, sc.Bytes()) {
			tail = append(tail[max(0, len(tail)-4):], sc.Text())
		}
	}
	err = cmd.Wait()
	if err == nil {
		return stdout.Bytes(), nil
	}
	var f HelperFailure
	if json.Unmarshal(stdout.Bytes(), &f) != nil || f.Message == "" {
		return nil, fmt.Errorf("%s %s: %w: %s", HelperName, args[0], err, strings.Join(tail, "; "))
	}
	if f.Kind == FailureInvalid {
		return nil, &ValidationError{Problems: f.Problems}
	}
	return nil, errors.New(f.Message)
}

// relayLog logs one of the helper's JSON log lines to logger at its level,
// with its attributes; it reports false for a line that is no such record.
func relayLog(ctx context.Context, logger *slog.Logger, line []byte) bool {
	var rec map[string]any
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	var level slog.Level
	if s, ok := rec[slog.LevelKey].(string); !ok || level.UnmarshalText([]byte(s)) != nil {
		return false
	}
	msg, _ := rec[slog.MessageKey].(string)
	attrs := []any{"helper", HelperName}
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		if k != slog.LevelKey && k != slog.MessageKey && k != slog.TimeKey {
			attrs = append(attrs, k, rec[k])
		}
	}
	logger.Log(ctx, level, msg, attrs...)
	return true
}

// minLevel is the most verbose level logger keeps.
func minLevel(logger *slog.Logger) slog.Level {
	for _, l := range []slog.Level{logging.LevelTrace, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn} {
		if logger.Enabled(context.Background(), l) {
			return l
		}
	}
	return slog.LevelError
}
