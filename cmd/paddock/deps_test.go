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

// shimDeps are the packages besides the standard library that paddock-shim
// may link: its two helpers' and what they need.
var shimDeps = regexp.MustCompile(`^(golang\.org/x/sys/unix|paddock\.dev/paddock/(cmd/paddock/(argv0|paddock-shim)|platform/qemu|platform/lima/(sshshim|bootwatch)|core/atomicfile))$`)

// A host agent runs paddock-shim a dozen times one after the other at each
// start and resume of a VM: it stays a binary that starts in a few
// milliseconds, linking nothing with initialisers of weight.
func TestTheShimLinksOnlyItsHelpers(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./paddock-shim")
	cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./paddock-shim: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if !shimDeps.MatchString(p) {
			t.Errorf("paddock-shim links %s; it keeps to the QEMU wrapper's and the ssh shim's packages (platform/qemu, platform/lima/sshshim)", p)
		}
	}
}

// controllers are the packages of the daemon's controllers: the clients
// (the CLI's commands, the tray, the Go client) learn the resources' facts
// from core/resource and api/wire, and reach the controllers through the
// REST API only.
var controllers = regexp.MustCompile(`^paddock\.dev/paddock/core/(app|vm)(/|$)`)

func TestClientsImportNoController(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		"paddock.dev/paddock/cmd/paddock/cli", "paddock.dev/paddock/app/...", "paddock.dev/paddock/api/client/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 5 {
		t.Fatalf("go list found %d client packages; expected the CLI, the tray's and the client's", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, path := range fields[1:] {
			if controllers.MatchString(path) {
				t.Errorf("%s imports %s; a client takes the resources' facts from core/resource or api/wire, and the rest from the REST API", fields[0], path)
			}
		}
	}
}
