package tray

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"paddock.dev/paddock/app/settings/link"
)

// settingsProcess is the settings window, which runs as a child process
// (`paddock tray --settings`, of the binary Options.SettingsExecutable
// names, which may be another than the tray's): only that process starts a
// GUI toolkit and its frame loop, and only while the window is open, so
// the tray itself wakes only when the daemon's watch reports something.
type settingsProcess struct {
	mu    sync.Mutex // serialises writes to stdin
	stdin io.WriteCloser
}

// showSettings opens the settings window, or raises it when it is open.
func (t *Tray) showSettings() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.settings; p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		_, err := io.WriteString(p.stdin, link.Raise+"\n")
		return err
	}
	cmd := exec.Command(t.opts.SettingsExecutable, "--instance", t.opts.Instance, "tray", "--settings")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the settings window: %w", err)
	}
	p := &settingsProcess{stdin: stdin}
	t.settings = p
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if g, ok := link.ParseApplied(lines.Text()); ok {
				t.expect(g)
			}
		}
		err := cmd.Wait()
		t.mu.Lock()
		t.settings = nil
		t.mu.Unlock()
		if err != nil {
			t.opts.Log.Warn("the settings window failed", "err", err, "stderr", stderr.String())
			t.desk.Notify("Paddock", "The settings window failed: "+lastLine(stderr.String(), err))
		}
	}()
	return nil
}

// lastLine is the last line a failed process wrote, which says why, or
// its exit status.
func lastLine(out string, err error) string {
	out = strings.TrimSpace(out)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if out == "" {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.String()
		}
		return err.Error()
	}
	return strings.TrimPrefix(out, "paddock: ")
}
