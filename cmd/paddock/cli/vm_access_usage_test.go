package cli

import (
	"bytes"
	"strings"
	"testing"
)

// Flags are checked before any daemon is asked: these run in-process.
func TestVMAccessUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"vm", "logs", "dev", "--stream", "console"}, `--stream must be stderr, stdout or serial, got "console"`},
		{[]string{"vm", "logs"}, "vm logs needs 1 argument(s), got 0"},
		{[]string{"vm", "shell"}, "vm shell needs at least 1 argument(s)"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if code := Run(c.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("paddock %v: exit %d %q, want %d and %q", c.args, code, errOut.String(), exitUsage, c.want)
		}
	}
}
