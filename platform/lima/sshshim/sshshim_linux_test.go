package sshshim

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

// A shim told that it is itself the real ssh refuses, naming the variable,
// instead of replacing itself with itself for ever.
func TestExecSSHRefusesToRunItself(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvRealSSH, self)
	err = Exec([]string{"-V"})
	if err == nil || !strings.Contains(err.Error(), EnvRealSSH) || !strings.Contains(err.Error(), "shim itself") {
		t.Fatalf("ExecSSH with itself as the real ssh: %v, want an error naming %s", err, EnvRealSSH)
	}
}

// A connection that hangs, as one made through QEMU's user network before
// the guest's network was up does while TCP backs off, does not hold the
// wait: a later attempt, made within redial, reads the banner of the sshd
// that came up.
func TestWaitForBannerIsNotHeldByAHangingAttempt(t *testing.T) {
	l := listen(t)
	go func() {
		for n := 0; ; n++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if n == 0 {
				defer c.Close() // the first hangs: it never gets a banner
				continue
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*redial)
	defer cancel()
	if !waitForBanner(ctx, l.Addr().String()) {
		t.Fatalf("no banner within %v: the hanging first attempt held the wait", 2*redial)
	}
}

// While no attempt has been answered (the guest's network is not up), the
// shim dials only once per redial, and keeps its attempts open: each would
// reach the guest at last, and the first to be answered brings the banner.
func TestWaitForBannerDialsOncePerRedialUntilTheGuestAnswers(t *testing.T) {
	l := listen(t)
	silent := 5 * redial / 2
	accepted := make(chan net.Conn, 100)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	go func() {
		time.Sleep(silent)
		first := <-accepted // the first attempt's SYN lands at last
		first.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*silent)
	defer cancel()
	if !waitForBanner(ctx, l.Addr().String()) {
		t.Fatalf("no banner from the first attempt, answered after %v", silent)
	}
	if n := len(accepted) + 1; n > 4 {
		t.Errorf("%d attempts in %v of silence, want one per %v", n, silent, redial)
	}
}

// Once the guest has answered (its network closed a connection: no sshd
// listened yet), the shim keeps one connection open at a time: an sshd
// that came up but is slow to send its banner, as under emulation while
// the guest boots, gets no further connections, each of which would cost
// it another process, and the one it took reads the banner.
func TestWaitForBannerLeavesASlowSSHDOneConnection(t *testing.T) {
	l := listen(t)
	const refused = 3 // connections closed at once, as before sshd listens
	slow := 2 * redial
	taken := make(chan int, 100) // connections accepted once "sshd" listened
	go func() {
		for n := 0; ; n++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if n < refused {
				c.Close()
				continue
			}
			taken <- n
			go func() {
				defer c.Close()
				time.Sleep(slow)
				c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*slow)
	defer cancel()
	if !waitForBanner(ctx, l.Addr().String()) {
		t.Fatalf("no banner from an sshd that answers after %v", slow)
	}
	if n := len(taken); n != 1 {
		t.Errorf("the slow sshd got %d connections while it prepared its banner, want 1", n)
	}
}

// listen returns a TCP listener on the loopback, closed with the test.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// The shim dials a cold boot of the guest image only once lima-init says
// on the console that it is done: the previous boot's log, which says so
// too, does not end the wait; this boot's does, as soon as it is written.
func TestWaitForInitWaitsForThisBootsLimaInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), filenames.SerialLog)
	done := "[   11.904016] lima-init[168]: lima-init: done\n"
	if err := os.WriteFile(path, []byte(done), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	returned := make(chan struct{})
	go func() {
		waitForInit(ctx, path, time.Now())
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("the wait ended on the previous boot's log")
	case <-time.After(5 * bootwatch.Poll):
	}
	// QEMU writes the log afresh; lima-init's line comes later.
	if err := os.WriteFile(path, []byte("[    3.27] systemd[1]: Inserted module 'autofs4'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-returned:
		t.Fatal("the wait ended before lima-init was done")
	case <-time.After(5 * bootwatch.Poll):
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(done)
	f.Close()
	select {
	case <-returned:
	case <-time.After(10 * bootwatch.Poll):
		t.Fatal("the wait did not end once lima-init was done")
	}
}
