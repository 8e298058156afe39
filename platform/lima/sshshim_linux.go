package lima

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"
	"golang.org/x/sys/unix"
)

// EnvRealSSH names the real ssh program for the ssh shim.
const EnvRealSSH = "PADDOCK_REAL_SSH"

// EnvSSHConsole names the serial console log of a guest that boots the
// guest image (a cold boot, not a resume): the shim dials the guest's SSH
// only once lima-init says there that it is done (waitForInit).
const EnvSSHConsole = "PADDOCK_SSH_CONSOLE"

// EnvSSHResumed names the file that the driver makes once a resumed guest
// runs (guestRunsFile): the shim dials the guest's SSH only then
// (waitForFile). Dialled while QEMU still loads the state, a connection
// reaches the guest only when QEMU's user network sends its SYN again,
// seconds later, and every such connection costs the guest's sshd a
// process as it resumes.
const EnvSSHResumed = "PADDOCK_SSH_RESUMED"

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

// IsSSHShimName reports whether argv0 is the name under which the paddock
// binary acts as the ssh shim.
func IsSSHShimName(argv0 string) bool {
	return filepath.Base(argv0) == "ssh"
}

// ExecSSH is the ssh shim that the driver puts first on a host agent's
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
// Control commands (-O) and anything without a port pass straight through.
func ExecSSH(args []string) error {
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
			waitForFile(ctx, runs)
		}
		waitForBanner(ctx, net.JoinHostPort("127.0.0.1", port))
		cancel()
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
	w := &consoleWatch{path: path, notBefore: start}
	pollUntil(ctx, func() bool {
		_, failed := w.check()
		return failed != "" || w.initDone
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

// sshShimEnv returns the host agent's environment entries that put the ssh
// shim first on its PATH, where Lima's host agent looks for ssh, and tell
// the shim the real ssh.
func (d *Driver) sshShimEnv() ([]string, error) {
	dir := filepath.Join(d.LimaHome, "_paddock", "path")
	real, err := lookPathOutside("ssh", dir)
	if err != nil {
		return nil, fmt.Errorf("ssh is not installed (on Debian and Ubuntu: apt-get install openssh-client): %w", err)
	}
	if err := linkExecutable(d.Executable, filepath.Join(dir, "ssh")); err != nil {
		return nil, err
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), EnvRealSSH + "=" + real}, nil
}

// sshShimWaitEnv returns the host agent's environment entry that makes the
// shim wait before it dials: on a resume, for the guest to run
// (EnvSSHResumed); on a cold boot of the guest image, whose kernel command
// line names its root file system by the label build.sh gives it, for
// lima-init's end on the console (EnvSSHConsole). Other images have no
// lima-init.
func sshShimWaitEnv(inst *limastore.Instance, resumed bool) []string {
	switch {
	case resumed:
		return []string{EnvSSHResumed + "=" + filepath.Join(inst.Dir, guestRunsFile)}
	case bootsGuestImage(inst):
		return []string{EnvSSHConsole + "=" + filepath.Join(inst.Dir, filenames.SerialLog)}
	}
	return nil
}

// guestImageRoot is on the kernel command line of the guest image's
// template: platform/linux/guestimage/build.sh names its root file system
// so, and no other image boots a kernel of its own with it.
const guestImageRoot = "root=LABEL=lima-root"

// bootsGuestImage reports whether inst boots the guest image.
func bootsGuestImage(inst *limastore.Instance) bool {
	for _, img := range inst.Config.Images {
		if img.Kernel != nil && strings.Contains(img.Kernel.Cmdline, guestImageRoot) {
			return true
		}
	}
	return false
}

// lookPathOutside finds file in PATH as exec.LookPath does, but never in
// dir, the shim's own directory: a PATH that already leads with it (a
// process started with a host agent's environment) would otherwise make the
// shim its own real ssh, and it would exec itself forever.
func lookPathOutside(file, dir string) (string, error) {
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if p == "" || filepath.Clean(p) == filepath.Clean(dir) {
			continue
		}
		path := filepath.Join(p, file)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return path, nil
		}
	}
	return "", exec.ErrNotFound
}
