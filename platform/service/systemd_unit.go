package service

import (
	"fmt"
	"strings"
)

// SystemdUnit renders the systemd unit of spec. Every word of ExecStart is
// double-quoted with the unit format's escapes (`\\`, `\"`, `%%` for
// specifiers, `$$` for variables), so a path with spaces, '%', '$' or '\'
// reaches the daemon unchanged; characters the format cannot carry at all
// are refused with ErrInvalid.
func SystemdUnit(spec Spec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	if spec.Scope == System && spec.UserName == "" {
		return "", fmt.Errorf("%w: a system service needs the user it runs as", ErrInvalid)
	}
	words := append([]string{spec.Executable}, spec.Args()...)
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = systemdQuote(w)
	}

	var b strings.Builder
	fmt.Fprintf(&b, `# %s.
# Written by "paddock service install"; run it again to change this file.
[Unit]
Description=%s
StartLimitIntervalSec=60
StartLimitBurst=5
`, spec.Description(), spec.Description())
	if spec.Scope == System {
		b.WriteString("After=network.target\n")
	}
	b.WriteString(`
[Service]
Type=simple
ExecStart=` + strings.Join(quoted, " ") + "\n")
	if spec.Scope == System {
		b.WriteString("User=" + systemdSpecifiers(spec.UserName) + "\n")
	}
	b.WriteString(`# A crash restarts the daemon within seconds; a clean exit stays down.
Restart=on-failure
RestartSec=2
# The daemon stops every VM gracefully, within its own bound, on SIGTERM.
TimeoutStopSec=120
# VM host agents run in their own process groups and must outlive a crash
# of the daemon, which recovers them when it restarts; so only the daemon
# is signalled, and it stops them itself on a regular stop.
KillMode=process

[Install]
`)
	if spec.Scope == System {
		b.WriteString("WantedBy=multi-user.target\n")
	} else {
		b.WriteString("WantedBy=default.target\n")
	}
	return b.String(), nil
}

// systemdQuote quotes one word of a command line in a unit file.
func systemdQuote(w string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(w) + `"`
}

// systemdSpecifiers escapes '%' in a setting that takes the rest of the
// line verbatim.
func systemdSpecifiers(v string) string {
	return strings.ReplaceAll(v, "%", "%%")
}
