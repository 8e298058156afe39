//go:build linux

package lima_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/lima"
)

// bootTimeout bounds one boot to Running; under TCG it takes well under a
// minute, so this only stops a hung test.
const bootTimeout = 5 * time.Minute

// One VM goes through its whole life: create, start to a clean Running,
// a command over SSH, a save refused while its shared folder is in use,
// a save and a resume, a resume that fails and boots instead, a snapshot
// taken and applied live, a stop whose grace ends in a power-off that the
// next boot names, its snapshot listed and deleted while it is stopped
// with its state saved, a resume, its host agent killed outright and the
// death noticed, and deletion, after which nothing of it is left. Each
// boot costs some 30 s under emulation, so the faults share them: the
// restart after a killed host agent is the VM controller's, which
// cmd/paddock/cli's TestVMLifecycle drives, and a stop that shuts the
// guest down gracefully is the App's (TestAppEndToEnd).
func TestE2ELifecycle(t *testing.T) {
	e := setupE2E(t)
	d := e.driver
	ctx := context.Background()
	const name = "life"

	shared := filepath.Join(e.tmp, "shared")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Create(ctx, name, e.template(t, fmt.Sprintf("mountType: 9p\nmounts: [{location: %q, writable: true}]\n", shared))); err != nil {
		t.Fatal(err)
	}
	inst := inspect(t, d, name)
	if !inst.Exists || inst.Running {
		t.Fatalf("after create: exists %v running %v, want exists and not running", inst.Exists, inst.Running)
	}
	if pending, err := d.Uncommitted(); err != nil || !slices.Contains(pending, name) {
		t.Fatalf("after create, Uncommitted() = %v, %v; want it to list %s", pending, err, name)
	}
	if err := d.Commit(name); err != nil {
		t.Fatal(err)
	}
	if pending, err := d.Uncommitted(); err != nil || slices.Contains(pending, name) {
		t.Fatalf("after commit, Uncommitted() = %v, %v; want no %s", pending, err, name)
	}

	startRunning(t, d, name)
	inst = inspect(t, d, name)
	if !inst.Running || (inst.Accel != "kvm" && inst.Accel != "tcg") {
		t.Fatalf("after start: running %v accel %q, want running on kvm or tcg", inst.Running, inst.Accel)
	}
	if got := e.ssh(t, name, "uname", "-n"); got != inst.Hostname {
		t.Errorf("guest hostname %q, want %q", got, inst.Hostname)
	}
	if got := e.ssh(t, name, "systemctl", "is-active", "lima-guestagent"); got != "active" {
		t.Errorf("guest agent is %q, want active", got)
	}
	checkSessions(t, e, name)

	saveAndResume(t, e, name, shared)
	resumeThatFailsBoots(t, e, name)
	// QEMU takes no snapshot of a running machine while a 9p folder is
	// mounted in it (its migration blocker), as docs/ says.
	e.ssh(t, name, "sudo umount -a -t 9p")
	snapshotLive(t, e, name)

	// A host agent that cannot answer the interrupt (frozen by SIGSTOP)
	// is killed when its grace period ends, and its VM with it.
	frozen := inspect(t, d, name)
	if err := syscall.Kill(frozen.HostAgentPID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := d.Stop(ctx, name, 3*time.Second); err != nil {
		t.Fatalf("stop of a frozen host agent: %v", err)
	}
	if forced := inspect(t, d, name); forced.HostAgentAlive || forced.DriverAlive {
		t.Fatalf("after the grace period: host agent alive %v, VM alive %v", forced.HostAgentAlive, forced.DriverAlive)
	}
	startRunning(t, d, name)
	restarted := inspect(t, d, name)
	if restarted.HostAgentPID == frozen.HostAgentPID || !restarted.Running {
		t.Fatalf("after the power-off: host agent %d running %v, want a new running host agent", restarted.HostAgentPID, restarted.Running)
	}
	if b := restarted.Boot; b.Resumed || !strings.Contains(b.Reason, "did not shut down within 3s at its last stop and was powered off") {
		t.Errorf("the boot after a stop that ended in a power-off: %+v, want it to say so", b)
	}
	// Snapshots listed and deleted while the machine is stopped with its
	// state saved leave the state fitting its disk.
	if err := d.Save(ctx, name); err != nil {
		t.Fatal(err)
	}
	snapshotStopped(t, d, name)
	startRunning(t, d, name)
	if b := inspect(t, d, name).Boot; !b.Resumed {
		t.Fatalf("after a snapshot deleted while saved, the start booted: %s", b.Reason)
	}

	// A host agent killed outright is noticed from its process; the
	// deletion clears what it left running.
	inst = inspect(t, d, name)
	if err := syscall.Kill(inst.HostAgentPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed host agent to be seen dead", func() bool { return !inspect(t, d, name).HostAgentAlive })
	if inspect(t, d, name).Running {
		t.Fatal("instance reported running with its host agent dead")
	}
	if err := d.Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inst.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("instance directory after delete: %v, want it gone", err)
	}
	if pids := processesMentioning(t, inst.Dir); len(pids) > 0 {
		t.Errorf("processes of the deleted instance still run: %v", pids)
	}
}

// Guests that cannot boot fail their start with the reason: a kernel that
// QEMU cannot load (QEMU exits), one that panics (QEMU runs on, and only
// the console says why), and a host folder that does not mount in the
// guest (lima-init fails with mount's reason).
func TestE2EUnbootable(t *testing.T) {
	e := setupE2E(t)
	notAKernel := filepath.Join(e.tmp, "not-a-kernel")
	if err := os.WriteFile(notAKernel, []byte("this is not a kernel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(e.tmp, "shared")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	base := string(e.template(t, ""))
	for _, tc := range []struct {
		name, template string
		want           []string
	}{{
		name:     "notakernel",
		template: strings.Replace(base, filepath.Join(e.imageDir, "vmlinuz"), notAKernel, 1),
		want:     []string{"kernel"},
	}, {
		// Without its initramfs the kernel cannot resolve root=LABEL=.
		name:     "panics",
		template: strings.Replace(base, `cmdline: "`, `cmdline: "rdinit=/nonexistent `, 1),
		want:     []string{"kernel panicked", "Unable to mount root fs"},
	}, {
		// A 9p protocol version the guest's kernel does not know.
		name: "mountfails",
		template: strings.Replace(base, "\nmounts: []\n",
			fmt.Sprintf("\nmountType: 9p\nmounts:\n- location: %q\n  9p: {protocolVersion: 9p2000.x}\n", shared), 1),
		want: []string{"lima-init failed", "lima-init: cannot mount the host folder " + shared + " (mount0, 9p)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			d := e.driver
			ctx := context.Background()
			if err := d.Create(ctx, tc.name, []byte(tc.template)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := d.Delete(ctx, tc.name); err != nil {
					t.Error(err)
				}
			})
			start := time.Now()
			err := d.Start(ctx, tc.name)
			if err == nil {
				wctx, cancel := context.WithTimeout(ctx, bootTimeout)
				err = d.WaitRunning(wctx, tc.name)
				cancel()
			}
			var se *lima.StartError
			if !errors.As(err, &se) {
				t.Fatalf("start of an unbootable VM: %v, want a *lima.StartError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("start error %q does not say %q", err, w)
				}
			}
			t.Logf("the start failed after %v as it should: %v", time.Since(start).Round(time.Second), err)
			if err := d.Stop(ctx, tc.name, 0); err != nil {
				t.Fatal(err)
			}
			if inst := inspect(t, d, tc.name); inst.HostAgentAlive || inst.Running {
				t.Fatalf("after a forced stop: %+v", inst)
			}
		})
	}
}

func startRunning(t testing.TB, d *lima.Driver, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bootTimeout)
	defer cancel()
	if err := d.Start(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := d.WaitRunning(ctx, name); err != nil {
		t.Fatal(err)
	}
}

func inspect(t testing.TB, d *lima.Driver, name string) lima.Instance {
	t.Helper()
	inst, err := d.Describe(name)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processesMentioning lists the processes whose command line has s in it,
// as "PID: COMMAND LINE".
func processesMentioning(t testing.TB, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			pids = append(pids, fmt.Sprintf("%d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return pids
}

// snapshotLive takes snapshot s1 of the running machine name, writes a
// file in the guest and applies s1 live: the machine runs on, without the
// file.
func snapshotLive(t *testing.T, e *e2e, name string) {
	t.Helper()
	d := e.driver
	ctx := context.Background()
	start := time.Now()
	if err := d.CreateSnapshot(ctx, name, "s1"); err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot s1 of the running machine taken in %v", time.Since(start).Round(time.Millisecond))
	e.ssh(t, name, "echo after > ~/after-s1 && sync") // ssh hands the guest one command line
	if got := e.ssh(t, name, "cat ~/after-s1"); got != "after" {
		t.Fatalf("the file written after s1 reads %q", got)
	}
	start = time.Now()
	if err := d.ApplySnapshot(ctx, name, "s1"); err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot s1 applied live in %v", time.Since(start).Round(time.Millisecond))
	if !inspect(t, d, name).Running {
		t.Fatal("the machine does not run after s1 was applied live")
	}
	// The ssh master connection's state went back with the guest's
	// memory, so this asks over a new connection.
	inst := inspect(t, d, name)
	sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := output(sctx, "", "ssh", "-F", inst.SSHConfigFile, "-o", "ControlMaster=no", "-o", "ControlPath=none", inst.Hostname, "--",
		"test -e ~/after-s1 && echo present || echo gone")
	if err != nil {
		t.Fatal(err)
	}
	if out != "gone" {
		t.Fatalf("after applying s1 live the file written after it is %s, want gone", out)
	}
	wantSnapshots(t, d, name, "s1")
}

// snapshotStopped lists s1 of the stopped machine name, with the size of
// its saved state, and deletes it.
func snapshotStopped(t *testing.T, d *lima.Driver, name string) {
	t.Helper()
	ctx := context.Background()
	snaps := wantSnapshots(t, d, name, "s1")
	if snaps[0].Size <= 0 || snaps[0].Created.IsZero() {
		t.Errorf("s1 of the stopped machine: %+v, want the size of its saved state and its time", snaps[0])
	}
	t.Logf("s1 listed while stopped: %d bytes, taken %v", snaps[0].Size, snaps[0].Created)
	if err := d.DeleteSnapshot(ctx, name, "s1"); err != nil {
		t.Fatal(err)
	}
	wantSnapshots(t, d, name)
}

func wantSnapshots(t *testing.T, d *lima.Driver, name string, tags ...string) []resource.VMSnapshot {
	t.Helper()
	snaps, err := d.ListSnapshots(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(snaps))
	for i, s := range snaps {
		got[i] = s.Tag
	}
	if !slices.Equal(got, tags) {
		t.Fatalf("snapshots %q, want %q", got, tags)
	}
	return snaps
}

// checkSessions opens a login on a terminal in the running instance name,
// as 'paddock shell' does, then runs a command without one that holds the
// App busy, as 'paddock shell -- COMMAND' does, and checks that Sessions
// counts each while it lasts, and never counts the driver's own commands.
func checkSessions(t *testing.T, e *e2e, name string) {
	t.Helper()
	d := e.driver
	sessions := func() int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		n, err := d.Sessions(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	until := func(want int) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for n := sessions(); n != want; n = sessions() {
			if time.Now().After(deadline) {
				t.Fatalf("Sessions = %d, want %d", n, want)
			}
			time.Sleep(time.Second)
		}
	}
	until(0)
	inst := inspect(t, d, name)
	// session runs ssh with args; end closes its input and waits for it.
	session := func(args ...string) (end func()) {
		t.Helper()
		cmd := exec.Command("ssh", append([]string{"-F", inst.SSHConfigFile, "-o", "ControlMaster=no"}, args...)...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ended := false
		t.Cleanup(func() {
			if !ended {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		return func() {
			io.WriteString(stdin, "exit\n")
			stdin.Close()
			cmd.Wait()
			ended = true
		}
	}
	// -tt: a terminal in the guest, though this test has none.
	end := session("-tt", inst.Hostname)
	until(1)
	end()
	until(0)
	// A command without a terminal, which who does not list: it reads its
	// input to the end.
	end = session(inst.Hostname, "--", resource.HoldingAppBusy("cat >/dev/null"))
	until(1)
	end()
	until(0)
}
