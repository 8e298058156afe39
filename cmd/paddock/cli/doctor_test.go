package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/lima"
)

// TestDoctorAndTheHostEndpointAgree runs paddock doctor on this host, in
// JSON and as a table, and asks a daemon the same at GET /host: the exit
// code follows the report's ok, and both front doors hold the same checks.
func TestDoctorAndTheHostEndpointAgree(t *testing.T) {
	e := newEnv(t, "default")
	out, errOut, code := e.run("", "doctor", "-o", "json")
	var r resource.HostReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor -o json printed no report (%v): %s%s", err, out, errOut)
	}
	if want := map[bool]int{true: 0, false: 1}[r.OK]; code != want {
		t.Errorf("doctor exited %d with ok %v, want %d: %s", code, r.OK, want, errOut)
	}
	if !r.OK && !strings.Contains(errOut, "cannot run the App until the failed checks are fixed") {
		t.Errorf("a failed doctor says nothing on stderr: %q", errOut)
	}
	names := func(r resource.HostReport) []string {
		var n []string
		for _, c := range r.Checks {
			n = append(n, c.Name)
			if c.Status != resource.HostCheckOK && c.Fix == "" && !strings.Contains(c.Message, "cannot tell") {
				t.Errorf("check %s is %s without a fix: %+v", c.Name, c.Status, c)
			}
		}
		return n
	}
	for _, want := range []string{"qemu", "qemu-img", "kvm device", "accelerator", "kvm group", "ssh", "sftp-server", "paddock-lima", "guest agent", "disk " + e.path("lima_home")} {
		if !slices.Contains(names(r), want) {
			t.Errorf("doctor has no %q check: %v", want, names(r))
		}
	}

	table, _, tableCode := e.run("", "doctor")
	if tableCode != code || !strings.Contains(table, "accelerator") {
		t.Errorf("doctor as a table exited %d (json: %d): %s", tableCode, code, table)
	}
	if _, errOut, code := e.run("", "doctor", "-o", "yaml"); code != 2 || !strings.Contains(errOut, "use table or json") {
		t.Errorf("doctor -o yaml: exit %d, %q; want 2 and the formats", code, errOut)
	}

	d := e.serve()
	status, body, _ := call(t, d.http, "GET", "http://paddock/api/v1alpha1/host", "", "")
	if status != 200 {
		t.Fatalf("GET /host: %d %v", status, body)
	}
	var fromAPI resource.HostReport
	b, _ := json.Marshal(body)
	if err := json.Unmarshal(b, &fromAPI); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(fromAPI), names(r)) || fromAPI.OS != r.OS || fromAPI.OK != r.OK {
		t.Errorf("GET /host = %+v, doctor = %+v", fromAPI, r)
	}
}

// TestDoctorFindsPaddocksOwnPrograms installs the paddock binary alone in a
// directory, as a broken install would leave it: doctor fails naming
// paddock-lima and the guest agent, each with where it looked and how to
// put it there. With both beside the binary, both checks pass and show
// the path.
func TestDoctorFindsPaddocksOwnPrograms(t *testing.T) {
	e := newEnv(t, "default")
	dir := t.TempDir()
	e.bin = paddocktest.Installed(t, paddockBin)
	if err := os.Rename(e.bin, filepath.Join(dir, "paddock")); err != nil {
		t.Fatal(err)
	}
	e.bin = filepath.Join(dir, "paddock")
	doctor := func() map[string]resource.HostCheck {
		out, errOut, code := e.run("", "doctor", "-o", "json")
		var r resource.HostReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("doctor -o json printed no report (%v): %s%s", err, out, errOut)
		}
		checks := map[string]resource.HostCheck{}
		for _, c := range r.Checks {
			checks[c.Name] = c
		}
		if c := checks[lima.HelperName]; c.Status == resource.HostCheckFailed && code != 1 {
			t.Errorf("doctor exited %d with %s missing, want 1", code, lima.HelperName)
		}
		return checks
	}

	checks := doctor()
	helper, agent := checks[lima.HelperName], checks["guest agent"]
	if helper.Status != resource.HostCheckFailed || !strings.Contains(helper.Message, filepath.Join(dir, lima.HelperName)) ||
		!strings.Contains(helper.Fix, "go build -o "+dir+" ./cmd/paddock/paddock-lima") {
		t.Errorf("paddock-lima missing: %+v; want it failed, naming %s and how to build it there", helper, dir)
	}
	agentName := lima.GuestAgentName(limayaml.NewArch(runtime.GOARCH))
	if agent.Status != resource.HostCheckFailed || !strings.Contains(agent.Message, agentName+" is missing") ||
		!strings.Contains(agent.Fix, "build-guestagent") {
		t.Errorf("guest agent missing: %+v; want it failed, naming %s and how to build it", agent, agentName)
	}

	if err := os.Symlink(filepath.Join(filepath.Dir(paddockBin), lima.HelperName), filepath.Join(dir, lima.HelperName)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, agentName), []byte("an agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	checks = doctor()
	for name, path := range map[string]string{lima.HelperName: filepath.Join(dir, lima.HelperName), "guest agent": filepath.Join(dir, agentName)} {
		if c := checks[name]; c.Status != resource.HostCheckOK || c.Message != path {
			t.Errorf("%s in place: %+v; want ok with %s", name, c, path)
		}
	}
}
