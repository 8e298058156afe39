package limaexec

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"
	"github.com/sirupsen/logrus"
)

// The guest agent's socket in the guest, as Lima v1.2.2 forwards it.
const guestAgentSocket = "/run/lima-guestagent.sock"

// forwardSettle is how long after Lima starts forwarding the guest agent's
// socket the result is checked: Lima's `ssh -O forward` takes milliseconds.
const forwardSettle = time.Second

// watchGuestAgentForward works around a defect of Lima v1.2.2's host agent
// (fixed upstream only in Lima 2). Until it reaches the guest agent, the
// host agent re-forwards the guest agent's socket to ga.sock in the
// instance directory every 10 s through the SSH control master: it deletes
// ga.sock, then asks the master to forward. The first forward is set up
// before the guest agent runs whenever the guest boots slowly (always under
// TCG); the master keeps it, every later request for the same forward is a
// silent no-op, and since ga.sock was deleted, nothing listens there any
// more. The start then ends degraded: "guest agent does not seem to be
// running".
//
// This watches Lima's own log for each forwarding attempt; when ga.sock is
// missing after one, the master holds a stale forward, so it cancels that
// forward and sets up a fresh one, which creates ga.sock anew. It runs until
// ctx ends.
func watchGuestAgentForward(ctx context.Context, inst *limastore.Instance, logger *slog.Logger) {
	local := filepath.Join(inst.Dir, filenames.GuestAgentSock)
	attempts := make(chan struct{}, 1)
	logrus.AddHook(&forwardHook{local: local, attempts: attempts})
	for {
		select {
		case <-ctx.Done():
			return
		case <-attempts:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(forwardSettle):
		}
		if _, err := os.Stat(local); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		logger.Info("the SSH master holds a stale forward of the guest agent's socket; renewing it", "socket", local)
		for _, verb := range []string{"cancel", "forward"} {
			if err := sshForward(ctx, inst, verb, local); err != nil {
				logger.Warn("renewing the guest agent's socket forward", "verb", verb, "err", err)
			}
		}
	}
}

// sshForward asks the instance's SSH control master to forward (or cancel
// forwarding) the guest agent's socket to local, using the SSH config the
// host agent wrote.
func sshForward(ctx context.Context, inst *limastore.Instance, verb, local string) error {
	cmd := exec.CommandContext(ctx, "ssh", "-F", inst.SSHConfigFile, "-T", "-O", verb,
		"-L", local+":"+guestAgentSocket, inst.Hostname)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return errors.New(err.Error() + ": " + string(bytes.TrimSpace(out)))
	}
	return nil
}

// forwardHook notices Lima's log line for an attempt to forward the guest
// agent's socket to local.
type forwardHook struct {
	local    string
	attempts chan<- struct{}
}

func (h *forwardHook) Levels() []logrus.Level { return []logrus.Level{logrus.InfoLevel} }

func (h *forwardHook) Fire(e *logrus.Entry) error {
	if strings.HasPrefix(e.Message, "Forwarding ") && strings.Contains(e.Message, h.local) {
		select {
		case h.attempts <- struct{}{}:
		default:
		}
	}
	return nil
}
