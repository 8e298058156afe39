package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// heavy are the packages the daemon must not link: Lima's host agent,
// instance, cloud-init and VM driver packages, and the user-mode network
// they bring (gvisor-tap-vsock, gVisor's network stack, gopacket). Go runs
// every linked package's initialisers at start, and theirs touch megabytes
// of the binary that the idle daemon would keep resident; paddock-lima
// runs them instead.
var heavy = regexp.MustCompile(`^(github\.com/google/gopacket|gvisor\.dev/gvisor|github\.com/containers/gvisor-tap-vsock)(/|$)` +
	`|^github\.com/lima-vm/lima/pkg/(instance|hostagent|cidata|driver|driverutil|networks/usernet)$`)

func TestTheDaemonLinksNoneOfLimasHeavyPackages(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -deps: %v", goos, err)
		}
		var linked []string
		for _, p := range strings.Fields(string(out)) {
			if heavy.MatchString(p) {
				linked = append(linked, p)
			}
		}
		if len(linked) > 0 {
			t.Errorf("GOOS=%s: the paddock binary links %s; run that code in paddock-lima (platform/lima/limaexec)", goos, strings.Join(linked, ", "))
		}
	}
}

func TestTheHelperLinksLimasHostAgent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./paddock-lima").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\ngithub.com/lima-vm/lima/pkg/hostagent\n") {
		t.Error("paddock-lima does not link Lima's host agent; the check above would pass for the wrong reason")
	}
}
