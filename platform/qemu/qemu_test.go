package qemu

import (
	"os/exec"
	"strings"
	"testing"
)

func TestLookQEMUNamesTheDebianPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find("x86_64")
	if err == nil {
		t.Fatal("Find found QEMU on an empty PATH")
	}
	for _, want := range []string{"apt-get install qemu-system-x86", "apt-get install qemu-utils"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestIncomingArgsQuoteTheStatesPathForTheShell(t *testing.T) {
	got := IncomingArgs([]string{"-m", "1024"}, "/home/o'neil/my vms/state")
	want := []string{"-m", "1024", "-incoming", `exec:cat '/home/o'\''neil/my vms/state'`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("IncomingArgs = %q, want %q", got, want)
	}
	// What QEMU hands /bin/sh -c must name the file, spaces and quote kept.
	out, err := exec.Command("/bin/sh", "-c", "printf %s "+strings.TrimPrefix(got[3], "exec:cat ")).Output()
	if err != nil || string(out) != "/home/o'neil/my vms/state" {
		t.Fatalf("the shell reads the quoted path as %q (%v)", out, err)
	}
}
