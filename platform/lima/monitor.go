package lima

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/digitalocean/go-qemu/qmp"

	"paddock.dev/paddock/platform/qemu"
)

// monitor is a connection to a QEMU's QMP socket, which Lima's QEMU
// driver opens in the instance directory. QEMU serves one client at a
// time; hold it briefly.
type monitor struct{ mon *qmp.SocketMonitor }

// dialMonitor connects to the QMP socket sock.
func dialMonitor(sock string) (*monitor, error) {
	mon, err := qmp.NewSocketMonitor("unix", sock, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("connect to QEMU's monitor: %w", err)
	}
	if err := mon.Connect(); err != nil {
		return nil, fmt.Errorf("connect to QEMU's monitor: %w", err)
	}
	return &monitor{mon}, nil
}

func (m *monitor) close() { m.mon.Disconnect() }

// run runs the QMP command cmd with args (nil for none) and returns what
// it returned.
func (m *monitor) run(cmd string, args any) (json.RawMessage, error) {
	call := map[string]any{"execute": cmd}
	if args != nil {
		call["arguments"] = args
	}
	req, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	out, err := m.mon.Run(req)
	if err != nil {
		return nil, fmt.Errorf("QEMU's %s: %w", cmd, err)
	}
	var resp struct {
		Return json.RawMessage `json:"return"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, fmt.Errorf("QEMU's %s answered %q: %w", cmd, out, err)
	}
	return resp.Return, nil
}

// status is QEMU's run state: running, paused, inmigrate, ...
func (m *monitor) status() (string, error) {
	out, err := m.run("query-status", nil)
	if err != nil {
		return "", err
	}
	var st struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return "", fmt.Errorf("QEMU's query-status answered %q: %w", out, err)
	}
	return st.Status, nil
}

// migrateToFile pauses the guest behind the QMP socket qmpSock, has QEMU
// write its state to file and then quit.
func migrateToFile(ctx context.Context, qmpSock, file string) error {
	mon, err := dialMonitor(qmpSock)
	if err != nil {
		return err
	}
	defer mon.close()
	run := mon.run
	// A paused guest is written in one pass; QEMU's default bandwidth
	// limit, meant for live migration over a network, would slow it.
	if _, err := run("migrate-set-parameters", map[string]any{"max-bandwidth": int64(64) << 30}); err != nil {
		return err
	}
	if _, err := run("stop", nil); err != nil {
		return err
	}
	if _, err := run("migrate", map[string]any{"uri": qemu.SaveURI(file)}); err != nil {
		// Refused at once: let the guest go on, for the cold stop that
		// follows.
		run("cont", nil)
		if strings.Contains(err.Error(), "VirtFS") {
			// The save unmounted the folder, but a mount of it in another
			// mount namespace, a container's bind mount, keeps it in use.
			return fmt.Errorf("%w (a container still has the shared folder bind-mounted: stop it first, or stop with --cold)", err)
		}
		return err
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		out, err := run("query-migrate", nil)
		if err != nil {
			return err
		}
		var st struct {
			Status      string `json:"status"`
			ErrorDetail string `json:"error-desc"`
		}
		if err := json.Unmarshal(out, &st); err != nil {
			return fmt.Errorf("QEMU's query-migrate answered %q: %w", out, err)
		}
		switch st.Status {
		case "completed":
			_, err := run("quit", nil)
			if err != nil && !isClosed(err) {
				return err
			}
			return nil
		case "failed", "cancelled":
			// Let the guest go on, for the cold stop that follows.
			run("cont", nil)
			return fmt.Errorf("QEMU could not save the VM's state: %s", cmp.Or(st.ErrorDetail, st.Status))
		}
		select {
		case <-ctx.Done():
			run("migrate_cancel", nil)
			return fmt.Errorf("saving the VM's state: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// continueWhenLoaded lets the guest of a QEMU that is loading a saved
// state (started with qemu.IncomingArgs) run once the state is loaded:
// the save paused the guest first, so that it is written in one pass, and
// QEMU keeps a loaded guest in the state it was saved in. It returns once
// the guest runs, QEMU is gone (the state did not load: waitRunning says
// so) or ctx ends; it may run again for the same start, after a daemon
// restart.
func continueWhenLoaded(ctx context.Context, qmpSock string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		mon, err := dialMonitor(qmpSock)
		if err == nil {
			st, err := mon.status()
			switch {
			case err == nil && st == "paused":
				_, err = mon.run("cont", nil)
				mon.close()
				return err
			case err == nil && st != "inmigrate":
				mon.close()
				return nil // running, or another state nobody should change
			}
			mon.close()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// isClosed reports whether err is the monitor's connection closing, as it
// does when QEMU quits before it answers.
func isClosed(err error) bool {
	s := err.Error()
	return strings.Contains(s, "EOF") || strings.Contains(s, "closed") || strings.Contains(s, "reset by peer")
}
