package service

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLaunchdPlist(t *testing.T) {
	spec := Spec{Scope: System, UserName: "alice", Executable: "/Applications/Pad & Dock/paddock", Instance: "dev",
		LogFile: "/Users/alice/Library/Logs/Paddock/dev/service.log"}
	plist, err := LaunchdPlist("dev.paddock.paddock-dev", spec)
	if err != nil {
		t.Fatal(err)
	}
	// The plist is well-formed XML and carries the arguments in order.
	dec := xml.NewDecoder(strings.NewReader(plist))
	var strs []string
	inString := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plist is not well-formed: %v\n%s", err, plist)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inString = tok.Name.Local == "string"
		case xml.CharData:
			if inString {
				strs = append(strs, string(tok))
			}
		case xml.EndElement:
			inString = false
		}
	}
	want := []string{"dev.paddock.paddock-dev", "/Applications/Pad & Dock/paddock", "--instance", "dev", "serve", "alice", LaunchdPATH, spec.LogFile, spec.LogFile}
	if strings.Join(strs, "|") != strings.Join(want, "|") {
		t.Errorf("plist strings = %q, want %q", strs, want)
	}
	for _, w := range []string{"<key>SuccessfulExit</key><false/>", "<key>RunAtLoad</key>"} {
		if !strings.Contains(plist, w) {
			t.Errorf("plist lacks %s", w)
		}
	}
	if _, err := LaunchdPlist("x", Spec{Executable: "/a\x01b"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("control character: err = %v, want ErrInvalid", err)
	}
}

// A LaunchAgent runs as the user who loads it: no UserName; the options
// of serve reach it, and so do the restart, stop and process-group keys.
func TestLaunchAgentPlist(t *testing.T) {
	plist, err := LaunchdPlist("dev.paddock.paddock", Spec{Executable: "/usr/local/bin/paddock", Listen: "tcp://127.0.0.1:47610",
		LogFile: "/Users/bob/Library/Logs/Paddock/default/service.log", LogLevel: "warn"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plist, "<key>UserName</key>") {
		t.Errorf("a LaunchAgent names a user:\n%s", plist)
	}
	for _, w := range []string{"<string>--listen</string>\n\t\t<string>tcp://127.0.0.1:47610</string>",
		"<string>--log-level</string>\n\t\t<string>warn</string>\n\t\t<string>serve</string>",
		"<key>ExitTimeOut</key>\n\t<integer>120</integer>", "<key>AbandonProcessGroup</key>\n\t<true/>",
		"<key>ThrottleInterval</key>\n\t<integer>2</integer>",
		"<key>EnvironmentVariables</key>\n\t<dict><key>PATH</key><string>/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin</string></dict>",
		"<key>StandardErrorPath</key>\n\t<string>/Users/bob/Library/Logs/Paddock/default/service.log</string>"} {
		if !strings.Contains(plist, w) {
			t.Errorf("the LaunchAgent lacks %q:\n%s", w, plist)
		}
	}
	if _, err := LaunchdPlist("x", Spec{Scope: System, Executable: "/usr/local/bin/paddock"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a LaunchDaemon without a user: err = %v, want ErrInvalid", err)
	}
}
