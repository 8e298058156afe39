// Package instancetest checks, for each OS's directory roots, which
// instance names their socket paths leave room for.
package instancetest

import (
	"strings"
	"testing"

	"paddock.dev/paddock/core/instance"
)

// LongestName resolves instances named "x", "xx", … up to 32 characters
// under r, and returns the longest name r accepts and the refusal of the
// next one (nil if all 32 are accepted). For every accepted name the
// longest socket path, with its NUL, must fit in sunPath bytes and end in
// "/" + longestSock, the longest socket name Lima makes.
func LongestName(t *testing.T, r instance.Roots, sunPath int, longestSock string) (int, error) {
	t.Helper()
	accepted := 0
	for n := 1; n <= 32; n++ {
		p, err := instance.Resolve(r, strings.Repeat("x", n))
		if err != nil {
			if !strings.Contains(err.Error(), "socket paths would be too long") {
				t.Fatalf("a %d-character name: %v", n, err)
			}
			return accepted, err
		}
		accepted = n
		longest := p.LongestSocket()
		if len(longest)+1 > sunPath {
			t.Errorf("accepted %s: %d bytes and the NUL exceed sun_path", longest, len(longest))
		}
		if !strings.HasSuffix(longest, "/"+longestSock) {
			t.Errorf("%s does not end in Lima's longest socket name %s", longest, longestSock)
		}
	}
	return accepted, nil
}
