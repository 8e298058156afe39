package service

import (
	"fmt"
	"strings"
)

// SystemdUnit renders the systemd unit of spec. Every word of ExecStart is
// double-quoted with the unit format's escapes, so that spaces, '%' and '$'
// reach the daemon unchanged; what systemd cannot carry (quotes and '\' in
// the executable's path, control characters anywhere) is refused with
// ErrInvalid.
func SystemdUnit(spec Spec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	if spec.Scope == System && spec.UserName == "" {
		return "", fmt.Errorf("%w: a system service needs the user it runs as", ErrInvalid)
	}
	if strings.ContainsAny(spec.Executable, `"'\`) {
		return "", fmt.Errorf("%w: systemd cannot run an executable whose path contains quotes or '\\': %s; move paddock to another directory", ErrInvalid, spec.Executable)
	}
	quoted := []string{`"` + systemdSpecifiers(spec.Executable) + `"`}
	for _, a := range spec.Args() {
		quoted = append(quoted, systemdQuote(a))
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
# On SIGTERM the daemon saves or stops every VM, within its own bound.
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

// systemdQuote quotes an argument of a command line in a unit file. (The
// executable's path takes no escapes but '%%': systemd expands no
// variables in it and refuses quotes and backslashes there.)
func systemdQuote(w string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(w) + `"`
}

// systemdSpecifiers escapes '%' in a setting that takes the rest of the
// line verbatim.
func systemdSpecifiers(v string) string {
	return strings.ReplaceAll(v, "%", "%%")
}
