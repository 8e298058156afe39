package sshshim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

const (
	// bannerWait bounds how long the shim waits for the guest's SSH server
	// before it runs ssh anyway, which then fails as it would have.
	bannerWait = time.Minute
	// bannerPoll is the pause before the shim dials again after an attempt
	// that ended without a banner.
	bannerPoll = 200 * time.Millisecond
	// redial is how often the shim dials again while its attempts wait
	// and the guest has not answered any of them yet.
	redial = time.Second
)

// IsName reports whether argv0 is the name under which a binary acts as
// the ssh shim: ssh.
func IsName(argv0 string) bool {
	return filepath.Base(argv0) == "ssh"
}

// Exec is the ssh shim that the driver puts first on a host agent's
// PATH. Lima v1.2.2's host agent checks that the guest's SSH server
// answers every 10 seconds, and when the guest boots in between, the next
// check is up to 10 seconds away (more, with TCP's back-off while the
// guest's network is not up yet). When ssh is asked to connect to a port
// and no SSH control master serves the connection yet, the shim first
// waits, on a cold boot of the guest image, for lima-init's end on the
// console (waitForInit), and then until the port answers with an SSH
// banner (waitForBanner), for at most bannerWait in all, so that Lima's
// check passes as soon as the guest's SSH server is up. Then it replaces
// itself with the real ssh ($PADDOCK_REAL_SSH) with the same arguments.
// On a resume it waits first for the guest to run (EnvSSHResumed).
// On a cold boot of the guest image, the shim answers the host agent's
// last requirement itself once the console shows that Lima's boot scripts
// ended (answerLastRequirement).
// Control commands (-O) and anything without a port pass straight through.
func Exec(args []string) error {
	real := os.Getenv(EnvRealSSH)
	if real == "" {
		return fmt.Errorf("%s is not set: the ssh shim does not know which ssh to run", EnvRealSSH)
	}
	if sameFile(real, "/proc/self/exe") {
		return fmt.Errorf("%s=%s is the ssh shim itself, not the real ssh: point it at the system's ssh", EnvRealSSH, real)
	}
	// A host agent that dies (its QEMU could not load a saved state, say)
	// takes its ssh with it: left alone, an ssh still waiting for the
	// guest would connect to the next boot's, on the same port, and stay
	// on as its master. The signal holds across the exec below, and is
	// not passed to the master a connecting ssh forks.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		return fmt.Errorf("ssh shim: ask to end with the host agent: %w", err)
	}
	if os.Getppid() == 1 {
		return errors.New("ssh shim: the host agent that ran it is gone")
	}
	if port, master, ok := sshTarget(args); ok && !masterUp(master) {
		ctx, cancel := context.WithTimeout(context.Background(), bannerWait)
		if console := os.Getenv(EnvSSHConsole); console != "" {
			waitForInit(ctx, console, time.Now())
		}
		if runs := os.Getenv(EnvSSHResumed); runs != "" {
			bootwatch.WaitForFile(ctx, runs)
		}
		waitForBanner(ctx, net.JoinHostPort("127.0.0.1", port))
		cancel()
	}
	if console := os.Getenv(EnvSSHConsole); console != "" && runsLimaScript(args) {
		answered, err := answerLastRequirement(console)
		if err != nil {
			return err
		}
		if answered {
			os.Exit(0) // as the script would have
		}
	}
	argv := append([]string{real}, args...)
	if err := syscall.Exec(real, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", real, err)
	}
	return nil
}

// sameFile reports whether the paths a and b name one file.
func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// sshTarget finds the port (-p) and control socket (-o ControlPath=...) in
// ssh's arguments, as Lima passes them. ok is false for control commands
// (-O) and when no port is given.
func sshTarget(args []string) (port, controlPath string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if i+1 == len(args) {
			break
		}
		switch a {
		case "-O":
			return "", "", false
		case "-p":
			port = args[i+1]
			i++
		case "-o":
			if v, found := strings.CutPrefix(args[i+1], "ControlPath="); found {
				controlPath = strings.Trim(v, `"'`)
			}
			i++
		}
	}
	return port, controlPath, port != ""
}

// masterUp reports whether an SSH control master listens on path.
func masterUp(path string) bool {
	if path == "" {
		return false
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// waitForInit returns once the console log at path shows that the guest
// image's lima-init is done, or failed, or when ctx ends. Every connection
// made before the guest's network is up reaches the guest at last (see
// waitForBanner), and under emulation the 7-10 that a boot of the image
// made cost its sshd as many processes, 0.2-0.4 s of the guest's CPU each,
// while the boot needs it; lima-init sets the network up, and the image's
// sshd starts after it, so the shim waits for its word instead. The log
// written before start, when QEMU had not made it anew yet, is the
// previous boot's and is not read.
func waitForInit(ctx context.Context, path string, start time.Time) {
	w := &bootwatch.Console{Path: path, NotBefore: start}
	bootwatch.PollUntil(ctx, func() bool {
		_, failed := w.Check()
		return failed != "" || w.InitDone()
	})
}

// waitForBanner reports, once addr answers with an SSH banner, true, and
// false when ctx ends first.
//
// Through QEMU's user network the host's connection is accepted at once
// and what it meets depends on the guest. Before the guest's network is
// up, QEMU sends the connection's SYN again and again with TCP's back-off,
// whatever the host does with its end: every attempt made then reaches
// the guest at last, and once sshd listens each costs it a process (under
// emulation, 25 attempts in flight kept a booting App's first login
// waiting 25 s, and sshd's MaxStartups turned Lima's own ssh away). So the
// shim keeps every attempt open until it reads a banner or is closed, and
// while the guest has answered none it dials again only every redial, for
// an attempt that waits out the back-off. Once one was closed before a
// banner (the guest's network is up; no sshd listens yet), a connection
// reaches the guest at once, and the shim keeps one such attempt open at
// a time, the next bannerPoll after the last was closed.
func waitForBanner(ctx context.Context, addr string) bool {
	var attempts sync.WaitGroup
	defer attempts.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // before the Wait: it ends the attempts still open
	results := make(chan bannerOutcome)
	open := 0 // attempts not ended
	dial := func() {
		open++
		attempts.Go(func() {
			got := readBanner(ctx, addr)
			select {
			case results <- got:
			case <-ctx.Done():
			}
		})
	}
	answered := false // an attempt was closed before a banner
	last := time.Now()
	dial()
	tick := time.NewTicker(bannerPoll)
	defer tick.Stop()
	for {
		select {
		case got := <-results:
			open--
			if got == gotBanner {
				return true
			}
			answered = answered || got == closedEarly
		case now := <-tick.C:
			if open == 0 || !answered && now.Sub(last) >= redial {
				dial()
				last = now
			}
		case <-ctx.Done():
			return false
		}
	}
}

// bannerOutcome is what one attempt to read the banner met.
type bannerOutcome int

const (
	// noAnswer: the dial failed (QEMU not listening yet), ctx ended, or
	// the attempt read something other than a banner (sshd's "Exceeded
	// MaxStartups").
	noAnswer bannerOutcome = iota
	// closedEarly: the connection was closed or reset before any byte
	// came, as through QEMU's user network while no sshd listens.
	closedEarly
	// gotBanner: the connection read "SSH-".
	gotBanner
)

// readBanner dials addr and reads the first bytes an SSH server sends,
// until ctx ends.
func readBanner(ctx context.Context, addr string) bannerOutcome {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return noAnswer
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Now()) })
	defer stop()
	banner := make([]byte, 4)
	n, err := io.ReadFull(c, banner)
	switch {
	case err == nil && string(banner) == "SSH-":
		return gotBanner
	case n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		return closedEarly
	}
	return noAnswer
}
