package autostart

import (
	"bytes"
	"encoding/xml"
	"strings"

	"paddock.dev/paddock/core/instance"
)

// Entry is what starts at login: the tray of one instance.
type Entry struct {
	Executable string // the paddock binary
	Instance   string
}

// Argv is the tray's command line.
func (e Entry) Argv() []string {
	return []string{e.Executable, "--instance", e.Instance, "tray"}
}

// suffix tells instances apart in names: none for the default instance.
func (e Entry) suffix(sep string) string {
	if e.Instance == instance.Default {
		return ""
	}
	return sep + e.Instance
}

// DesktopFileName is the name of the XDG autostart file.
func (e Entry) DesktopFileName() string { return "paddock-tray" + e.suffix("-") + ".desktop" }

// Desktop is the XDG autostart .desktop file.
func (e Entry) Desktop() []byte {
	argv := e.Argv()
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = desktopQuote(a)
	}
	name := "Paddock"
	if s := e.suffix(" "); s != "" {
		name += " (" + strings.TrimSpace(s) + ")"
	}
	return []byte(`[Desktop Entry]
Type=Application
Name=` + name + `
Comment=Linux VMs and a container engine, from the system tray
Exec=` + strings.Join(quoted, " ") + `
Icon=paddock
Terminal=false
Categories=Development;System;
X-GNOME-Autostart-enabled=true
`)
}

// desktopQuote quotes an Exec argument as the Desktop Entry
// Specification says: in double quotes when it has a reserved character,
// with ", `, $ and \ escaped by a backslash; % is doubled in any case.
func desktopQuote(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if arg != "" && !strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`=") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range arg {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Label is the LaunchAgent's label, which names its file too.
func (e Entry) Label() string { return "dev.paddock.tray" + e.suffix(".") }

// LaunchAgent is the macOS LaunchAgent property list that starts the tray
// at login.
func (e Entry) LaunchAgent() []byte {
	var args bytes.Buffer
	for _, a := range e.Argv() {
		args.WriteString("\t\t<string>")
		xml.EscapeText(&args, []byte(a))
		args.WriteString("</string>\n")
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + e.Label() + `</string>
	<key>ProgramArguments</key>
	<array>
` + args.String() + `	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
}

// RunValueName is the name of the value under the Run key.
func (e Entry) RunValueName() string { return "Paddock Tray" + e.suffix(" ") }

// RunCommand is the Run key's value: the command line, each argument
// quoted as Windows' command-line parser reads it back.
func (e Entry) RunCommand() string {
	argv := e.Argv()
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = windowsQuote(a)
	}
	return strings.Join(quoted, " ")
}

// windowsQuote quotes one argument for CommandLineToArgvW: in double
// quotes when it has a space, tab or quote, backslashes before a quote
// doubled.
func windowsQuote(arg string) string {
	if arg != "" && !strings.ContainsAny(arg, " \t\"") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range arg {
		switch r {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}
