package hostcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"
)

// codesign's outputs for `codesign -d --entitlements - --xml PROGRAM`, in
// the forms it prints them: "Executable=" on stderr, the plist on stdout.
const (
	program        = "/Users/ann/go/bin/paddock-lima"
	codesignHeader = "Executable=" + program + "\n"
	entitledXML    = `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "https://www.apple.com/DTDs/PropertyList-1.0.dtd">` +
		`<plist version="1.0"><dict><key>com.apple.security.network.client</key><true/><key>com.apple.security.network.server</key><true/>` +
		`<key>com.apple.security.virtualization</key><true/></dict></plist>`
	networkOnlyXML = `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "https://www.apple.com/DTDs/PropertyList-1.0.dtd">` +
		`<plist version="1.0"><dict><key>com.apple.security.network.client</key><true/></dict></plist>`
	unsignedStderr = program + ": code object is not signed at all\n"
)

// fakeCodesign puts a codesign on PATH that records its arguments and
// prints stdout and stderr with exit code rc.
func fakeCodesign(t *testing.T, stdout, stderr string, rc int) (argsFile string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake codesign is a shell script")
	}
	dir := t.TempDir()
	for name, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	q := func(name string) string { return shellquote.Join(filepath.Join(dir, name)) }
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" >%s\ncat %s >&2\ncat %s\nexit %d\n", q("args"), q("stderr"), q("stdout"), rc)
	if err := os.WriteFile(filepath.Join(dir, "codesign"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return filepath.Join(dir, "args")
}

// Doctor on a Mac where VZ runs guests asks codesign for paddock-lima's
// entitlements and fails, with the command that signs it, when the
// virtualization entitlement is not among them.
func TestVZEntitlementCheck(t *testing.T) {
	fix := "codesign --force --sign - --entitlements packaging/macos/vz.entitlements " + program
	for _, c := range []struct {
		name           string
		stdout, stderr string
		rc             int
		want           want
	}{
		{"signed with the entitlement (packaging/macos/build.sh)", entitledXML, codesignHeader, 0,
			want{"vz entitlement", OK, program + " is signed with com.apple.security.virtualization", ""}},
		{"signed by the Go linker on arm64, without entitlements", "", codesignHeader, 0,
			want{"vz entitlement", Failed, "signed without the com.apple.security.virtualization entitlement", fix}},
		{"signed with other entitlements", networkOnlyXML, codesignHeader, 0,
			want{"vz entitlement", Failed, "signed without", fix}},
		{"built by go build on Intel: not signed", "", unsignedStderr, 1,
			want{"vz entitlement", Failed, "is not signed", fix}},
		{"codesign fails otherwise", "", "error: " + program + ": No such file or directory\n", 1,
			want{"vz entitlement", Warning, "cannot tell whether " + program + " has the com.apple.security.virtualization entitlement: codesign: error:", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := fakeCodesign(t, c.stdout, c.stderr, c.rc)
			f := healthyMac()
			f.Entitlements = readEntitlements(context.Background(), program)
			r := Darwin("arm64", f)
			assertChecks(t, r, []want{c.want})
			if r.OK != (c.want.status != Failed) {
				t.Errorf("report OK = %v with the check %s", r.OK, c.want.status)
			}
			got, err := os.ReadFile(args)
			if err != nil {
				t.Fatal("codesign did not run:", err)
			}
			if want := "-d\n--entitlements\n-\n--xml\n" + program + "\n"; string(got) != want {
				t.Errorf("codesign ran with %q, want %q", got, want)
			}
		})
	}
}

// Without codesign, or where VZ does not run guests, or without a
// paddock-lima to check, doctor does not fail on the signature.
func TestVZEntitlementCheckNotApplicable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := healthyMac()
	f.Entitlements = readEntitlements(context.Background(), program)
	assertChecks(t, Darwin("arm64", f), []want{{"vz entitlement", Warning, "cannot tell", ""}})

	f = healthyMac()
	f.ProductVersion = "12.7.4" // QEMU runs guests
	f.Entitlements = Entitlements{Program: program}
	f.QEMU = Program{Path: "/opt/homebrew/bin/qemu-system-aarch64", Output: brewQEMU}
	for _, c := range Darwin("arm64", f).Checks {
		if c.Name == "vz entitlement" {
			t.Errorf("macOS 12, where QEMU runs guests, got %+v", c)
		}
	}
	if e := readEntitlements(context.Background(), ""); e != (Entitlements{}) {
		t.Errorf("no paddock-lima: %+v, want nothing asked", e)
	}
}

func TestHasEntitlement(t *testing.T) {
	pretty := "Executable=/x\n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n" +
		"<plist version=\"1.0\">\n<dict>\n\t<key>com.apple.security.virtualization</key>\n\t<true/>\n</dict>\n</plist>\n"
	bracket := "Executable=/x\n[Dict]\n\t[Key] com.apple.security.network.client\n\t[Value]\n\t\t[Bool] true\n" +
		"\t[Key] com.apple.security.virtualization\n\t[Value]\n\t\t[Bool] true\n"
	for out, want := range map[string]bool{
		entitledXML:    true,
		pretty:         true,
		bracket:        true,
		networkOnlyXML: false,
		strings.Replace(entitledXML, "virtualization</key><true/>", "virtualization</key><false/>", 1):                           false,
		strings.Replace(bracket, "virtualization\n\t[Value]\n\t\t[Bool] true", "virtualization\n\t[Value]\n\t\t[Bool] false", 1): false,
		codesignHeader: false,
		unsignedStderr: false,
		"":             false,
	} {
		if got := hasEntitlement(out, VZEntitlement); got != want {
			t.Errorf("hasEntitlement(%q) = %v, want %v", out, got, want)
		}
	}
}
