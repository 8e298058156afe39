package cli

import (
	"bytes"
	"strings"
	"testing"
)

// These check the argument handling of the service commands, which needs
// no service manager; TestServiceUnderSystemd in platform/service runs the
// commands under a real systemd.
func TestServiceCommandUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"service", "install", "--user", "alice"}, "--user names the account of a system service; add --system"},
		{[]string{"service", "install", "--image", "/nonexistent/image"}, "--image: image /nonexistent/image is no guest image directory"},
		{[]string{"service", "status", "-o", "yaml"}, `unknown output format "yaml"`},
		{[]string{"service", "logs", "--lines", "-1"}, "--lines must be 0 (all) or more"},
		{[]string{"service", "start", "--timeout", "-1s"}, "--timeout must be 0 (forever) or more"},
		{[]string{"service", "stop", "now"}, "takes no arguments"},
		{[]string{"--instance", "Bad_Name", "service", "status"}, "invalid instance name"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(c.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("paddock %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr.String(), exitUsage, c.want)
		}
	}
}
