//go:build linux

package lima_test

import (
	"context"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/platform/lima"
)

// saveAndResume checks a save refused while the guest uses its shared
// folder, the machine running on, then a save and a resume of the
// machine name: a process started before the save runs on, the folder is
// mounted again, the guest's clock is the host's, and the logins of
// before the save end.
func saveAndResume(t *testing.T, e *e2e, name, shared string) {
	t.Helper()
	d := e.driver
	ctx := context.Background()

	e.ssh(t, name, "sudo systemd-run --unit=busy --working-directory="+shared+" sleep 600")
	err := d.Save(ctx, name)
	if err == nil || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("save with the shared folder in use: %v, want umount's target is busy", err)
	}
	if inst := inspect(t, d, name); !inst.Running || inst.Saved {
		t.Fatalf("after the refused save: running %v saved %v, want the machine running on, nothing saved", inst.Running, inst.Saved)
	}
	e.ssh(t, name, "sudo systemctl stop busy")

	e.ssh(t, name, "sudo systemd-run --unit=sleeper sleep 100000")
	pid := e.ssh(t, name, "systemctl show -P MainPID sleeper")
	agent := e.ssh(t, name, "systemctl show -P MainPID lima-guestagent")
	logins := strings.Fields(e.ssh(t, name, sshLogins))
	if len(logins) == 0 {
		t.Fatal("no ssh login in the guest before the save")
	}
	if err := os.WriteFile(filepath.Join(shared, "from-host"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := d.Save(ctx, name); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved in %v", time.Since(began).Round(time.Millisecond))
	if inst := inspect(t, d, name); inst.HostAgentAlive || inst.DriverAlive || !inst.Saved {
		t.Fatalf("after the save: host agent %v, VM %v, saved %v; want both gone and the state saved", inst.HostAgentAlive, inst.DriverAlive, inst.Saved)
	}
	// The guest's clock must catch up with the host's, not go on from
	// the moment of the save.
	time.Sleep(5 * time.Second)

	began = time.Now()
	startRunning(t, d, name)
	t.Logf("resumed to Running in %v", time.Since(began).Round(time.Millisecond))
	inst := inspect(t, d, name)
	if !inst.Boot.Resumed || inst.Saved {
		t.Fatalf("after the start: boot %+v saved %v, want resumed and the state consumed", inst.Boot, inst.Saved)
	}
	if got := e.ssh(t, name, "systemctl show -P MainPID sleeper"); got != pid {
		t.Errorf("the process started before the save is %q after the resume, want pid %s running on", got, pid)
	}
	// The guest agent serves the new host agent as it is, without a
	// restart that would keep it away while the host agent connects.
	if got := e.ssh(t, name, "systemctl show -P MainPID lima-guestagent"); got != agent {
		t.Errorf("the guest agent is pid %q after the resume, want pid %s serving on", got, agent)
	}
	forwardsNewPort(t, e, name)
	if got := e.ssh(t, name, "cat "+shared+"/from-host"); got != "hello" {
		t.Errorf("the shared folder's file reads %q after the resume, want hello", got)
	}
	guest, err := strconv.ParseFloat(e.ssh(t, name, "date +%s.%N"), 64)
	if err != nil {
		t.Fatal(err)
	}
	if skew := float64(time.Now().UnixNano())/1e9 - guest; math.Abs(skew) > 3 {
		t.Errorf("the guest's clock is %.1f s off the host's after the resume", skew)
	}
	e.ssh(t, name, "sudo systemctl stop sleeper")
	// The logins of before the save lost their host end with the QEMU
	// that saved: the guest's sshd ends them rather than keeping them,
	// one more every resume.
	waitFor(t, "the logins of before the save to end", func() bool {
		now := strings.Fields(e.ssh(t, name, sshLogins))
		return !slices.ContainsFunc(logins, func(pid string) bool { return slices.Contains(now, pid) })
	})
}

// sshLogins lists the pids of the guest's sshd processes that each serve
// one login.
const sshLogins = "pgrep -d ' ' -f '^sshd: [^ ]+@' || true"

// forwardsNewPort opens a port in the guest and waits until the host
// reaches it through the forward Lima's host agent makes when the guest
// agent reports the port.
func forwardsNewPort(t *testing.T, e *e2e, name string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	e.ssh(t, name, "sudo systemd-run --unit=web busybox httpd -f -h /tmp -p 127.0.0.1:"+port)
	defer e.ssh(t, name, "sudo systemctl stop web")
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a port the guest opened after the resume (%s) did not reach the host within a minute: %v", port, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// resumeThatFailsBoots saves the running machine name, replaces its state
// with a truncated one that passes the start's checks (QEMU reads to its
// early end and fails), and starts it: the machine boots instead and says
// why.
func resumeThatFailsBoots(t *testing.T, e *e2e, name string) {
	t.Helper()
	d := e.driver
	if err := d.Save(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	inst := inspect(t, d, name)
	f, err := os.Open(filepath.Join(inst.Dir, "paddock-saved.state"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := lima.ReplaceSavedState(inst.Dir, head); err != nil {
		t.Fatal(err)
	}
	startRunning(t, d, name)
	inst = inspect(t, d, name)
	if inst.Boot.Resumed || !strings.Contains(inst.Boot.Reason, "resuming the saved state failed") {
		t.Fatalf("after a start from a truncated state: boot %+v, want a cold boot saying the resume failed", inst.Boot)
	}
	t.Logf("booted instead of resuming: %s", inst.Boot.Reason)
}
