package client

import (
	"testing"
	"time"
)

// A boot's lines are told from an earlier boot's by the time Lima's log
// lines carry, to the second.
func TestWrittenBefore(t *testing.T) {
	since := time.Date(2026, 12, 1, 4, 0, 5, 0, time.UTC)
	cases := []struct {
		line string
		want bool
	}{
		{`{"level":"info","msg":"Starting QEMU","time":"2026-12-01T04:00:04Z"}`, true},
		{`{"level":"info","msg":"Starting QEMU","time":"2026-12-01T04:00:05Z"}`, false},
		{`{"level":"info","msg":"Starting QEMU","time":"2026-12-01T05:00:04+01:00"}`, true}, // another zone, the same instant
		{`{"level":"info","msg":"Starting QEMU"}`, false},
		{`Starting QEMU`, false},
	}
	for _, c := range cases {
		if got := writtenBefore(c.line, since); got != c.want {
			t.Errorf("writtenBefore(%s) = %v, want %v", c.line, got, c.want)
		}
	}
	if writtenBefore(cases[0].line, time.Time{}) {
		t.Error("a zero time skips a line")
	}
}
