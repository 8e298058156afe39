package hostcheck

import (
	"context"
	"encoding/xml"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/kballard/go-shellquote"
)

// VZEntitlement is the entitlement without which Apple's Virtualization
// framework refuses to start a VM in a process.
const VZEntitlement = "com.apple.security.virtualization"

// EntitlementsFile is the entitlements plist, in Paddock's source tree,
// that packaging/macos/build.sh signs paddock and paddock-lima with.
const EntitlementsFile = "packaging/macos/vz.entitlements"

// Entitlements is what codesign said of the entitlements of the program
// that runs VZ guests (paddock-lima, where Lima's host agent runs).
type Entitlements struct {
	Program string // the program asked about; "" when there is none
	Output  string // codesign's stdout and stderr together
	Err     string // why codesign failed (its exit status), or that there is none
}

// readEntitlements asks codesign, found on PATH, for program's
// entitlements as XML.
func readEntitlements(ctx context.Context, program string) Entitlements {
	e := Entitlements{Program: program}
	if program == "" {
		return e
	}
	codesign, err := exec.LookPath("codesign")
	if err != nil {
		e.Err = err.Error()
		return e
	}
	out, err := runOutput(ctx, codesign, "-d", "--entitlements", "-", "--xml", program)
	e.Output = out
	if err != nil {
		e.Err = err.Error()
	}
	return e
}

// vzSignatureCheck says whether the program that runs VZ guests carries
// the virtualization entitlement; a binary built with `go build` does not
// (the linker signs arm64 binaries without entitlements, amd64 ones not at
// all), and the first VM start fails. The fix signs it ad hoc with the
// entitlements Paddock's packages are signed with.
func vzSignatureCheck(e Entitlements) Check {
	c := Check{Name: "vz entitlement"}
	fix := "in Paddock's source directory: " + shellquote.Join("codesign", "--force", "--sign", "-", "--entitlements", EntitlementsFile, e.Program)
	switch {
	case hasEntitlement(e.Output, VZEntitlement):
		c.Status, c.Message = OK, fmt.Sprintf("%s is signed with %s", e.Program, VZEntitlement)
	case strings.Contains(e.Output, "not signed at all"):
		c.Status, c.Fix = Failed, fix
		c.Message = fmt.Sprintf("%s is not signed: VZ refuses to start guests without the %s entitlement", e.Program, VZEntitlement)
	case e.Err == "":
		c.Status, c.Fix = Failed, fix
		c.Message = fmt.Sprintf("%s is signed without the %s entitlement: VZ refuses to start guests", e.Program, VZEntitlement)
	default:
		why := e.Err
		if l := firstLine(e.Output); l != "" {
			why = l
		}
		c.Status = Warning
		c.Message = fmt.Sprintf("cannot tell whether %s has the %s entitlement: codesign: %s", e.Program, VZEntitlement, why)
	}
	return c
}

// bracketEntitlementRE matches an entitlement set to true in the form
// codesign prints without --xml on macOS 12 and later.
var bracketEntitlementRE = regexp.MustCompile(`\[Key\]\s*([^\s\]]+)\s*\[Value\]\s*\[Bool\]\s*true`)

// hasEntitlement reports whether codesign's output out sets key to true:
// a plist in XML (--xml, or --entitlements :- before macOS 12), possibly
// after codesign's "Executable=" line, or the bracketed form.
func hasEntitlement(out, key string) bool {
	for _, m := range bracketEntitlementRE.FindAllStringSubmatch(out, -1) {
		if m[1] == key {
			return true
		}
	}
	i := strings.Index(out, "<plist")
	if i < 0 {
		return false
	}
	d := xml.NewDecoder(strings.NewReader(out[i:]))
	d.Strict = false
	inKey, matched := false, false
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if matched {
				return t.Name.Local == "true"
			}
			inKey = t.Name.Local == "key"
		case xml.EndElement:
			inKey = false
		case xml.CharData:
			if inKey && strings.TrimSpace(string(t)) == key {
				matched = true
			}
		}
	}
}
