package resource_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
)

// A command held busy runs in the guest's shell as given, its exit code
// its own, and AppBusyQuery reports it while it runs, through a child
// that outlives its shell, and not after. The guest's login shell is
// bash; dash is the other shell a guest may have as sh.
func TestHoldingAppBusy(t *testing.T) {
	for _, sh := range []string{"bash", "dash"} {
		t.Run(sh, func(t *testing.T) {
			path, err := exec.LookPath(sh)
			if err != nil {
				t.Fatalf("this test needs %s", sh)
			}
			home := t.TempDir()
			guest := func(line string) *exec.Cmd {
				cmd := exec.Command(path, "-c", line)
				cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
				return cmd
			}
			busy := func() string {
				t.Helper()
				out, err := guest(resource.AppBusyQuery).Output()
				if err != nil {
					t.Fatalf("the query failed: %v", err)
				}
				return string(out)
			}
			if got := busy(); got != "" {
				t.Fatalf("busy before any command: %q", got)
			}

			out, err := guest(resource.HoldingAppBusy(`sh -c 'printf "%s|" "$@"; exit 7' sh 'a b' "it's"`)).Output()
			var exit *exec.ExitError
			if string(out) != "a b|it's|" || !errors.As(err, &exit) || exit.ExitCode() != 7 {
				t.Fatalf("the command printed %q and ended with %v, want a b|it's| and exit 7", out, err)
			}
			if got := busy(); got != "" {
				t.Fatalf("busy after the command ended: %q", got)
			}

			// The shell starts a child that lives on after the shell, and
			// leaves: the child holds the App busy until it ends.
			fifo := home + "/go"
			if err := exec.Command("mkfifo", fifo).Run(); err != nil {
				t.Fatal(err)
			}
			if err := guest(resource.HoldingAppBusy("sh -c 'cat " + fifo + " >/dev/null &'")).Run(); err != nil {
				t.Fatal(err)
			}
			if got := busy(); !strings.Contains(got, "paddock shell") {
				t.Fatalf("not busy while a command's child runs: %q", got)
			}
			release, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			release.Close()
			for deadline := time.Now().Add(10 * time.Second); busy() != ""; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("still busy 10s after the last child ended")
				}
			}
		})
	}
}
