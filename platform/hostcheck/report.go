package hostcheck

import (
	"regexp"
	"strings"

	"paddock.dev/paddock/core/resource"
)

// Aliases of the report's API types, so the checks read short.
type (
	Status = resource.HostCheckStatus
	Check  = resource.HostCheck
	Report = resource.HostReport
)

const (
	OK      = resource.HostCheckOK
	Warning = resource.HostCheckWarning
	Failed  = resource.HostCheckFailed
)

// newReport sums up an OS's own checks, then those of Paddock's programs
// and of the free disk, which every OS has, into a report.
func newReport(goos, goarch string, checks []Check, parts []Part, disks []Disk) Report {
	checks = append(append(checks, partChecks(parts)...), diskChecks(disks)...)
	r := Report{OS: goos, Arch: goarch, OK: true, Checks: checks}
	for _, c := range checks {
		if c.Status == Failed {
			r.OK = false
		}
	}
	return r
}

// Program is what the gatherer found of one program: where it is and what
// it printed when asked for its version.
type Program struct {
	Path   string // empty when it is not on PATH
	Output string // the version output, stdout and stderr together
	Err    string // why asking it for its version failed, if it did
}

var versionRE = regexp.MustCompile(`\d+\.\d+(\.\d+)*`)

// version returns the first dotted version number in the first line of
// out, or "".
func version(out string) string {
	return versionRE.FindString(firstLine(out))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// atLeast reports whether the dotted version v is at least major.minor.
func atLeast(v string, major, minor int) bool {
	var parts [2]int
	for i, p := range strings.SplitN(v, ".", 3) {
		if i == 2 {
			break
		}
		n := 0
		for _, r := range p {
			if r < '0' || r > '9' {
				return false
			}
			n = n*10 + int(r-'0')
		}
		parts[i] = n
	}
	return parts[0] > major || parts[0] == major && parts[1] >= minor
}
