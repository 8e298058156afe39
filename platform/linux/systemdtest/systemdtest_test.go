package systemdtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContainer boots systemd, runs a long-running unit as root and as a
// lingering user, and checks that nothing of it reached the host.
func TestContainer(t *testing.T) {
	c := Boot(t)
	marker := filepath.Join(os.TempDir(), "systemdtest-host-marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(marker)

	c.Run("systemd-run", "--unit=probe", "sleep", "infinity")
	if got := strings.TrimSpace(c.Run("systemctl", "is-active", "probe.service")); got != "active" {
		t.Fatalf("probe.service is %q", got)
	}
	c.Run("touch", "/etc/systemdtest-inside")

	u := c.AddUser("probe", 1400)
	u.EnableLinger()
	u.Run("systemd-run", "--user", "--unit=userprobe", "sleep", "infinity")
	if got := strings.TrimSpace(u.Run("systemctl", "--user", "is-active", "userprobe.service")); got != "active" {
		t.Fatalf("userprobe.service is %q", got)
	}
	if err := os.WriteFile(filepath.Join(c.Share, "from-host"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := u.Run("cat", SharePath+"/from-host"); got != "x" {
		t.Fatalf("the user reads %q from the share", got)
	}

	if _, err := os.Stat("/etc/systemdtest-inside"); err == nil {
		t.Error("a file written inside the container appeared on the host")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the host's temporary directory lost a file while systemd ran: %v", err)
	}
}
