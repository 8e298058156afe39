package sshshim

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima/bootwatch"
)

// envExecShim makes the test binary the shim itself (TestMain): Exec with
// its arguments, as the host agent runs it under the name ssh.
const envExecShim = "PADDOCK_TEST_EXEC_SSH_SHIM"

func TestMain(m *testing.M) {
	if os.Getenv(envExecShim) != "" {
		err := Exec(os.Args[1:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// limaScript is how Lima v1.2.2's host agent runs a requirement script:
// its interpreter, wrapped to export the cidata's parameters, as ssh's
// remote command, and the script on ssh's input. ended says whether the
// shim ended within a time; out is what the real ssh printed, read once
// it ended.
func limaScript(t *testing.T, console, script string) (cmd *exec.Cmd, out *bytes.Buffer, ended func(within time.Duration) bool) {
	t.Helper()
	// A stand-in for the real ssh, which would need an SSH server: it
	// prints the input it was given, which ssh would send to the guest.
	standIn := filepath.Join(t.TempDir(), "ssh")
	if err := os.WriteFile(standIn, []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	interpreter := `/bin/bash -c "$(printf 'while read -r line; do [ -n "$line" ] && export "$line"; done<<EOF\n$(sudo cat /mnt/lima-cidata/param.env)\nEOF\n/bin/bash')"`
	cmd = exec.Command(os.Args[0], "-o", "ControlPath=/nonexistent", "127.0.0.1", "--", interpreter)
	cmd.Env = append(os.Environ(), envExecShim+"=1", EnvRealSSH+"="+standIn, EnvSSHConsole+"="+console)
	cmd.Stdin = strings.NewReader(script)
	out = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	return cmd, out, func(within time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(within):
			return false
		}
	}
}

// The host agent's last requirement, whose script looks for the end of
// Lima's boot scripts every 3 seconds, is answered by the shim, without
// ssh, once the console shows their end; other requirements' scripts
// reach ssh at once and whole.
func TestTheShimAnswersTheLastRequirementAtTheBootScriptsEnd(t *testing.T) {
	console := filepath.Join(t.TempDir(), filenames.SerialLog)
	if err := os.WriteFile(console, []byte("[   11.904016] lima-init[168]: lima-init: done\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	sshReady := "#!/bin/bash\nset -eux -o pipefail\nif ! timeout 30s bash -c \"until sudo diff -q /run/lima-ssh-ready /mnt/lima-cidata/meta-data 2>/dev/null; do sleep 3; done\"; then\n\texit 1\nfi\n"
	_, out, ended := limaScript(t, console, sshReady)
	if !ended(10*time.Second) || out.String() != sshReady {
		t.Fatalf("another requirement's script: ssh got %q, want it at once and whole", out)
	}

	bootDone := strings.ReplaceAll(sshReady, "lima-ssh-ready", "lima-boot-done")
	cmd, out, ended := limaScript(t, console, bootDone)
	if ended(5 * bootwatch.Poll) {
		t.Fatalf("the last requirement's script reached ssh before the boot scripts ended: %q", out)
	}
	f, err := os.OpenFile(console, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[   26.677099] sh[244]: LIMA 2026-12-05T23:38:27+00:00| Exiting with code 0\n")
	f.Close()
	if !ended(10*time.Second) || !cmd.ProcessState.Success() || out.String() != "" {
		t.Fatalf("once the boot scripts ended: %v, %q; want success without ssh", cmd.ProcessState, out)
	}
}

// A boot that failed (the kernel panicked) is not answered: the script
// reaches ssh whole, which fails as it would have.
func TestTheShimLeavesTheLastRequirementOfAFailedBootToSSH(t *testing.T) {
	console := filepath.Join(t.TempDir(), filenames.SerialLog)
	if err := os.WriteFile(console, []byte("[    1.2] Kernel panic - not syncing: VFS: Unable to mount root fs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\nuntil sudo diff -q /run/lima-boot-done /mnt/lima-cidata/meta-data; do sleep 3; done\n"
	cmd, out, ended := limaScript(t, console, script)
	if !ended(10*time.Second) || !cmd.ProcessState.Success() || out.String() != script {
		t.Fatalf("ssh got %q (%v), want the script whole", out, cmd.ProcessState)
	}
}
