package lima

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stand-in ssh on PATH runs the remote command with the local shell,
// so that the talk with the guest's shell runs for real: the time's line
// goes to read and the script to the shell exec'd after it. (sudo and
// date are stand-ins too: setting the clock needs a guest.)
func TestGuestRunAtHostTimeHandsTheTimeThenTheScript(t *testing.T) {
	bin := t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// ssh -F CONFIG -o ControlMaster=no HOST REMOTE
	write("ssh", "#!/bin/sh\nshift 5\nexec /bin/sh -c \"$1\"\n")
	write("sudo", "#!/bin/sh\nexec \"$@\"\n")
	write("date", "#!/bin/sh\necho \"date $*\" >>"+out+"\n")
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))

	inst := Instance{SSHConfigFile: "cfg", Hostname: "lima-x"}
	if err := (&Driver{}).guestRunAtHostTime(context.Background(), inst, "echo script ran >>"+out+"\n"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "date -u -s @") || lines[1] != "script ran" {
		t.Fatalf("the guest's shell ran %q: want date -u -s @TIME, then the script", lines)
	}
}
