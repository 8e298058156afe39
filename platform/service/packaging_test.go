package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The service definitions under packaging/ are what Install renders for a
// packaged binary, so that a packaged service and an installed one behave
// alike. Run with PADDOCK_UPDATE_PACKAGING=1 to rewrite them after a change
// of the renderers.

const packagedBinary = "/usr/bin/paddock"

func packagingFile(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join("..", "..", "packaging", filepath.FromSlash(rel))
}

// packagedHeader replaces the rendered comment that names the install
// command, which does not write the packaged files.
var packagedHeader = strings.NewReplacer(
	`# Written by "paddock service install"; run it again to change this file.`,
	`# Installed by the paddock package; change it with "systemctl edit".`,
	`<!-- Written by "paddock service install"; run it again to change this file. -->`,
	`<!-- Copy to ~/Library/LaunchAgents to run the daemon as a LaunchAgent, or run "paddock service install". -->`,
)

func checkPackaged(t *testing.T, rel, want string) {
	t.Helper()
	want = packagedHeader.Replace(want)
	path := packagingFile(t, rel)
	if os.Getenv("PADDOCK_UPDATE_PACKAGING") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s differs from what the renderer writes; run the test with PADDOCK_UPDATE_PACKAGING=1\n--- have:\n%s\n--- want:\n%s", rel, got, want)
	}
}

func TestPackagedUserUnit(t *testing.T) {
	unit, err := SystemdUnit(Spec{Executable: packagedBinary})
	if err != nil {
		t.Fatal(err)
	}
	checkPackaged(t, "systemd/paddock.service", unit)
}

// The packaged system unit is a template whose instance is the user the
// daemon runs as: systemctl enable --now paddock@alice.
func TestPackagedSystemUnit(t *testing.T) {
	unit, err := SystemdUnit(Spec{Scope: System, UserName: "USER", Executable: packagedBinary})
	if err != nil {
		t.Fatal(err)
	}
	unit = strings.Replace(unit, "User=USER\n", "User=%i\n", 1)
	unit = strings.Replace(unit, "(instance default)", "(instance default of user %i)", 2)
	checkPackaged(t, "systemd/paddock@.service", unit)
}

func TestPackagedLaunchAgent(t *testing.T) {
	plist, err := LaunchdPlist("dev.paddock.paddock", Spec{Executable: "/usr/local/bin/paddock"})
	if err != nil {
		t.Fatal(err)
	}
	checkPackaged(t, "launchd/dev.paddock.paddock.plist", plist)
}
