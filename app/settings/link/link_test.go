package link

import "testing"

func TestAppliedRoundTrips(t *testing.T) {
	if g, ok := ParseApplied(Applied(7) + "\n"); !ok || g != 7 {
		t.Fatalf("ParseApplied(Applied(7)) = %d, %v", g, ok)
	}
	for _, line := range []string{"", Raise, "applied", "applied x", "applied -1", "applied 0"} {
		if _, ok := ParseApplied(line); ok {
			t.Errorf("ParseApplied(%q) accepted it", line)
		}
	}
}
