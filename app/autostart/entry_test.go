package autostart

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestDesktopEntry(t *testing.T) {
	e := Entry{Executable: "/opt/my apps/paddock", Instance: "default"}
	got := string(e.Desktop())
	for _, want := range []string{
		"[Desktop Entry]\n", "Type=Application\n", "Name=Paddock\n", "Icon=paddock\n",
		`Exec="/opt/my apps/paddock" --instance default tray` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if e.DesktopFileName() != "paddock-tray.desktop" {
		t.Errorf("file name %q", e.DesktopFileName())
	}
	dev := Entry{Executable: `/x/$HOME/100%`, Instance: "dev"}
	if got := string(dev.Desktop()); !strings.Contains(got, `Exec="/x/\$HOME/100%%" --instance dev tray`) || !strings.Contains(got, "Name=Paddock (dev)\n") {
		t.Errorf("reserved characters not quoted, or the instance not named:\n%s", got)
	}
	if dev.DesktopFileName() != "paddock-tray-dev.desktop" {
		t.Errorf("file name %q", dev.DesktopFileName())
	}
}

func TestLaunchAgent(t *testing.T) {
	e := Entry{Executable: "/Applications/Paddock & Co/paddock", Instance: "dev"}
	var plist struct {
		Keys    []string `xml:"dict>key"`
		Strings []string `xml:"dict>string"`
		Args    []string `xml:"dict>array>string"`
	}
	if err := xml.Unmarshal(e.LaunchAgent(), &plist); err != nil {
		t.Fatalf("not XML: %v\n%s", err, e.LaunchAgent())
	}
	if strings.Join(plist.Args, "|") != "/Applications/Paddock & Co/paddock|--instance|dev|tray" {
		t.Errorf("ProgramArguments %q", plist.Args)
	}
	if plist.Strings[0] != "dev.paddock.tray.dev" || e.Label() != "dev.paddock.tray.dev" {
		t.Errorf("label %q", plist.Strings[0])
	}
	if !strings.Contains(strings.Join(plist.Keys, " "), "RunAtLoad") {
		t.Errorf("keys %q", plist.Keys)
	}
}

func TestRunCommand(t *testing.T) {
	e := Entry{Executable: `C:\Program Files\Paddock\paddock.exe`, Instance: "default"}
	if got := e.RunCommand(); got != `"C:\Program Files\Paddock\paddock.exe" --instance default tray` {
		t.Errorf("Run value %s", got)
	}
	if e.RunValueName() != "Paddock Tray" || (Entry{Instance: "dev"}).RunValueName() != "Paddock Tray dev" {
		t.Errorf("value names %q", e.RunValueName())
	}
	for arg, want := range map[string]string{`a"b`: `"a\"b"`, `C:\dir with space\`: `"C:\dir with space\\"`, `plain`: `plain`, ``: `""`} {
		if got := windowsQuote(arg); got != want {
			t.Errorf("windowsQuote(%q) = %s, want %s", arg, got, want)
		}
	}
}

func TestInstallAndRemoveOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG autostart file is Linux's; the other OSes' contents are tested above")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := Entry{Executable: "/usr/bin/paddock", Instance: "default"}
	path, err := Install(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "autostart", "paddock-tray.desktop"); path != want {
		t.Errorf("installed at %s, want %s", path, want)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != string(e.Desktop()) {
		t.Fatalf("installed file: %v\n%s", err, data)
	}
	if where, removed, err := Remove(e); err != nil || !removed || where != path {
		t.Fatalf("Remove = %s, %v, %v; want %s, true", where, removed, err, path)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("still there after Remove: %v", err)
	}
	if _, removed, err := Remove(e); err != nil || removed {
		t.Fatalf("removing twice: removed %v, %v; want nothing removed and no error", removed, err)
	}
}
