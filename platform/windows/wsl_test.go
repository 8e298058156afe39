package windows

import (
	"context"
	"slices"
	"strings"
	"testing"

	"paddock.dev/paddock/platform/windows/wslfake"
)

// Recorded outputs of `wsl.exe --list --verbose`: WSL pads the columns to
// the widest name and translates the header and the states.
const (
	verboseEnglish = "  NAME            STATE           VERSION\n" +
		"* Ubuntu-22.04    Running         2\n" +
		"  lima-app        Stopped         2\n" +
		"  lima-old        Stopped         1\n"
	verboseGerman = "  NAME            STATUS            VERSION\n" +
		"* Ubuntu          Wird ausgeführt   2\n" +
		"  lima-app        Beendet           2\n"
	verboseJapanese = "  名前          状態            バージョン\n" +
		"* lima-app      実行中          2\n"
	// WSL prints this, translated, and exits with an error when no
	// distribution is installed.
	noneInstalled = "Windows Subsystem for Linux has no installed distributions.\n\n" +
		"Use 'wsl.exe --list --online' to list available distributions\n" +
		"and 'wsl.exe --install <Distro>' to install.\n\n" +
		"Distributions can also be installed by visiting the Microsoft Store:\nhttps://aka.ms/wslstore\n" +
		"Error code: Wsl/WSL_E_DEFAULT_DISTRO_NOT_FOUND\n"
	noneInstalledGerman = "Das Windows-Subsystem für Linux hat keine installierten Distributionen.\n" +
		"Fehlercode: Wsl/WSL_E_DEFAULT_DISTRO_NOT_FOUND\n"
)

func TestParseVerboseList(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []Distribution
	}{
		{"English", verboseEnglish, []Distribution{
			{"Ubuntu-22.04", true, "Running", 2}, {"lima-app", false, "Stopped", 2}, {"lima-old", false, "Stopped", 1}}},
		{"German, a state of two words", verboseGerman, []Distribution{
			{"Ubuntu", true, "Wird ausgeführt", 2}, {"lima-app", false, "Beendet", 2}}},
		{"Japanese", verboseJapanese, []Distribution{{"lima-app", true, "実行中", 2}}},
		{"none installed", noneInstalled, nil},
		{"none installed, German", noneInstalledGerman, nil},
		{"nothing", "", nil},
	} {
		// As wsl.exe writes it (UTF-16LE, CRLF), decoded.
		out := DecodeOutput(utf16LE(strings.ReplaceAll(tc.out, "\n", "\r\n")))
		if got := ParseVerboseList(out); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func utf16LE(s string) []byte {
	var b []byte
	for _, r := range s { // the test's text is within the BMP
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func TestDecodeOutput(t *testing.T) {
	for in, want := range map[string]string{
		string(utf16LE("lima-app\r\n")):          "lima-app\r\n",
		"\xff\xfe" + string(utf16LE("lima-app")): "lima-app",
		"lima-app\r\n":                           "lima-app\r\n", // WSL_UTF8=1
		"\ufefflima-app":                         "lima-app",
		string(utf16LE("Ä")):                     "Ä",
	} {
		if got := DecodeOutput([]byte(in)); got != want {
			t.Errorf("DecodeOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

// Running, Registered, Unregister and Import against a fake wsl.exe that
// answers with recorded outputs and exit codes, in English and German.
func TestWSLCommands(t *testing.T) {
	ctx := context.Background()
	t.Run("running", func(t *testing.T) {
		f := wslfake.New(t)
		f.On(t, "--list --running --quiet", "Ubuntu\nlima-app\n", 0)
		if ok, err := Running(ctx, "lima-app"); !ok || err != nil {
			t.Errorf("Running(lima-app) = %v, %v; want true", ok, err)
		}
		if ok, err := Running(ctx, "lima-dev"); ok || err != nil {
			t.Errorf("Running(lima-dev) = %v, %v; want false", ok, err)
		}
		f.On(t, "--list --running --quiet", "Es werden keine Distributionen ausgeführt.\n", 255)
		if ok, err := Running(ctx, "lima-app"); ok || err != nil {
			t.Errorf("none running: Running = %v, %v; want false, no error", ok, err)
		}
	})
	t.Run("unregister", func(t *testing.T) {
		f := wslfake.New(t)
		f.On(t, "--list --verbose", verboseGerman, 0)
		if err := Unregister(ctx, "lima-app"); err != nil {
			t.Fatal(err)
		}
		if err := Unregister(ctx, "lima-dev"); err != nil {
			t.Fatal(err)
		}
		f.On(t, "--list --verbose", noneInstalledGerman, 255)
		if err := Unregister(ctx, "lima-app"); err != nil {
			t.Errorf("none installed, in German: %v", err)
		}
		want := []string{"--list --verbose", "--unregister lima-app", "--list --verbose", "--list --verbose"}
		if got := f.Calls(); !slices.Equal(got, want) {
			t.Errorf("wsl.exe ran %q, want %q", got, want)
		}
	})
	t.Run("import", func(t *testing.T) {
		f := wslfake.New(t)
		f.On(t, "--list --verbose", noneInstalled, 255)
		if err := Import(ctx, "lima-app", "/d/app", "/d/app/basedisk"); err != nil {
			t.Fatal(err)
		}
		if got := f.Calls(); !slices.Contains(got, "--import lima-app /d/app /d/app/basedisk --version 2") {
			t.Errorf("wsl.exe ran %q, want an import on WSL 2", got)
		}
		f.On(t, "--list --verbose", verboseEnglish, 0)
		if err := Import(ctx, "lima-old", "/d/old", "/d/old/basedisk"); err == nil || !strings.Contains(err.Error(), "wsl.exe --set-version lima-old 2") {
			t.Errorf("a distribution on WSL 1: %v", err)
		}
		before := len(f.Calls())
		if err := Import(ctx, "lima-app", "/d/app", "/d/app/basedisk"); err != nil || len(f.Calls()) != before+1 {
			t.Errorf("a registered distribution was imported again: %v, %q", err, f.Calls())
		}
	})
	t.Run("no wsl.exe", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := Running(ctx, "lima-app"); err == nil {
			t.Error("Running without wsl.exe: no error")
		}
		if err := Unregister(ctx, "lima-app"); err == nil {
			t.Error("Unregister without wsl.exe: no error")
		}
	})
}
