package lima

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A PATH that already leads with the shim's directory (a daemon started
// with a host agent's environment) still gives the real ssh, not the shim.
func TestSSHShimEnvNeverTakesTheShimForTheRealSSH(t *testing.T) {
	real, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("needs ssh on PATH (openssh-client)")
	}
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), "paddock")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d := &Driver{LimaHome: home, Executable: exe}
	shimDir := filepath.Join(home, "_paddock", "path")
	t.Setenv("PATH", shimDir+string(os.PathListSeparator)+filepath.Dir(real))
	if _, err := d.sshShimEnv(); err != nil { // makes the shim
		t.Fatal(err)
	}
	env, err := d.sshShimEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := EnvRealSSH + "=" + real
	for _, kv := range env {
		if kv == want {
			return
		}
	}
	t.Fatalf("environment %q, want %s", env, want)
}

// A shim told that it is itself the real ssh refuses, naming the variable,
// instead of replacing itself with itself for ever.
func TestExecSSHRefusesToRunItself(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvRealSSH, self)
	err = ExecSSH([]string{"-V"})
	if err == nil || !strings.Contains(err.Error(), EnvRealSSH) || !strings.Contains(err.Error(), "shim itself") {
		t.Fatalf("ExecSSH with itself as the real ssh: %v, want an error naming %s", err, EnvRealSSH)
	}
}

// A connection that hangs, as one made through QEMU's user network before
// the guest's network was up does while TCP backs off, does not hold the
// wait: a later attempt reads the banner of the sshd that came up, well
// before the hanging one would give up (bannerRead).
func TestWaitForBannerIsNotHeldByAHangingAttempt(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
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
	ctx, cancel := context.WithTimeout(context.Background(), bannerRead/2)
	defer cancel()
	if !waitForBanner(ctx, l.Addr().String()) {
		t.Fatalf("no banner within %v: the hanging first attempt held the wait", bannerRead/2)
	}
}
