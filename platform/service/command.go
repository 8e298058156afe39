package service

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// toolTimeout bounds one call of a service manager's tool; stopping a
// service waits for the daemon's graceful shutdown, so it is generous.
const toolTimeout = 3 * time.Minute

// runTool runs a service manager's command-line tool and returns its
// standard output. Unlike kardianos, a failure carries the tool's own
// error text.
func runTool(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if msg == "" {
			return stdout.String(), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
		}
		return stdout.String(), fmt.Errorf("%s %s: %s (%w)", name, strings.Join(args, " "), msg, err)
	}
	return stdout.String(), nil
}

// indent prefixes every line of text for nesting it under an error.
func indent(text string) string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(text, "\n", "\n  ")
}
