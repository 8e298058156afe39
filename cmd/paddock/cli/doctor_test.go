package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
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
	for _, want := range []string{"qemu", "qemu-img", "kvm device", "accelerator", "kvm group", "ssh", "disk " + e.path("lima_home")} {
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
