package service

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// LaunchdPlist renders the launchd property list of spec: a LaunchAgent for
// the user scope, a LaunchDaemon running as spec.UserName for the system
// scope. Strings are XML-escaped; characters XML cannot carry are refused
// with ErrInvalid.
func LaunchdPlist(label string, spec Spec) (string, error) {
	if err := spec.validate(); err != nil {
		return "", err
	}
	if spec.Scope == System && spec.UserName == "" {
		return "", fmt.Errorf("%w: a system service needs the user it runs as", ErrInvalid)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by "paddock service install"; run it again to change this file. -->
<plist version="1.0">
<dict>
`)
	key(&b, "Label", plistString(label))
	args := []string{"\t<array>"}
	for _, a := range append([]string{spec.Executable}, spec.Args()...) {
		args = append(args, "\t\t"+plistString(a))
	}
	key(&b, "ProgramArguments", strings.Join(append(args, "\t</array>"), "\n"))
	if spec.Scope == System {
		key(&b, "UserName", plistString(spec.UserName))
	}
	key(&b, "RunAtLoad", "<true/>")
	// Restart after a crash, not after a clean exit; launchd waits
	// ThrottleInterval seconds between starts.
	key(&b, "KeepAlive", "<dict><key>SuccessfulExit</key><false/></dict>")
	key(&b, "ThrottleInterval", "<integer>2</integer>")
	// On SIGTERM the daemon saves or stops every VM within its own bound.
	key(&b, "ExitTimeOut", "<integer>120</integer>")
	// VM host agents must outlive a crash of the daemon.
	key(&b, "AbandonProcessGroup", "<true/>")
	// launchd starts jobs with PATH=/usr/bin:/bin:/usr/sbin:/sbin, where
	// neither the daemon's checks nor Lima's QEMU driver would find a
	// Homebrew QEMU, which a shell finds.
	key(&b, "EnvironmentVariables", "<dict><key>PATH</key>"+plistString(LaunchdPATH)+"</dict>")
	if spec.LogFile != "" {
		key(&b, "StandardOutPath", plistString(spec.LogFile))
		key(&b, "StandardErrorPath", plistString(spec.LogFile))
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String(), nil
}

// LaunchdPATH is the daemon's PATH under launchd: Homebrew's prefixes
// (Apple silicon, then Intel) before the system's directories.
const LaunchdPATH = "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

func key(b *strings.Builder, k, value string) {
	fmt.Fprintf(b, "\t<key>%s</key>\n", k)
	if !strings.HasPrefix(value, "\t") {
		b.WriteString("\t")
	}
	b.WriteString(value + "\n")
}

func plistString(s string) string {
	var b bytes.Buffer
	// EscapeText only fails on a failing writer; a bytes.Buffer does not.
	_ = xml.EscapeText(&b, []byte(s))
	return "<string>" + b.String() + "</string>"
}
