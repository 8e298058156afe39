package hostcheck

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestGatherLinux runs the real gatherer on this host: the report must
// hold every Linux check, and say what this host really has.
func TestGatherLinux(t *testing.T) {
	dir := t.TempDir()
	r := Gather(context.Background(), Options{Dirs: []string{dir + "/not/yet/made"}})
	if r.OS != "linux" || r.Arch != runtime.GOARCH {
		t.Fatalf("report for %s/%s", r.OS, r.Arch)
	}
	for _, name := range []string{"qemu", "qemu-img", "kvm device", "accelerator", "kvm group", "ssh", "sftp-server", "disk " + dir + "/not/yet/made"} {
		find(t, r, name)
	}
	if d := find(t, r, "disk "+dir+"/not/yet/made"); strings.Contains(d.Message, "cannot tell") {
		t.Errorf("the free disk of a directory not made yet is unknown: %+v", d)
	}
	_, err := exec.LookPath("ssh")
	if got := find(t, r, "ssh").Status; (err == nil) != (got == OK) {
		t.Errorf("ssh check says %s, but LookPath says %v", got, err)
	}
}
