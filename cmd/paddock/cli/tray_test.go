package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"paddock.dev/paddock/core/buildinfo"
)

// paddock tray --autostart on puts the tray's XDG autostart file, which
// starts this binary's tray of the instance, where the desktop looks at
// login; off removes it; anything else is a usage error.
func TestTrayAutostartOnAndOff(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG autostart file is Linux's; app/autostart tests the other OSes' entries")
	}
	home := newEnv(t, "").home
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "PADDOCK_INSTANCE"} {
		t.Setenv(v, "")
	}
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(args, &out, &errOut)
		return out.String(), errOut.String(), code
	}
	exe, err := buildinfo.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, ".config", "autostart")
	for _, c := range []struct{ instance, file, exec string }{
		{"default", "paddock-tray.desktop", exe + " --instance default tray"},
		{"dev", "paddock-tray-dev.desktop", exe + " --instance dev tray"},
	} {
		file := filepath.Join(dir, c.file)
		out, errOut, code := run("--instance", c.instance, "tray", "--autostart", "on")
		if code != 0 || !strings.Contains(out, file) {
			t.Fatalf("%s: --autostart on exited %d: %q %q; want it to name %s", c.instance, code, out, errOut, file)
		}
		data, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(data), "\nExec="+c.exec+"\n") {
			t.Fatalf("%s: %s: %v\n%s\nwant Exec=%s", c.instance, file, err, data, c.exec)
		}
	}
	out, errOut, code := run("tray", "--autostart", "off")
	if code != 0 || !strings.Contains(out, "no longer starts at login") {
		t.Fatalf("--autostart off exited %d: %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "paddock-tray.desktop")); !os.IsNotExist(err) {
		t.Errorf("the default instance's file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "paddock-tray-dev.desktop")); err != nil {
		t.Errorf("another instance's file went too: %v", err)
	}
	if _, errOut, code := run("tray", "--autostart", "yes"); code != exitUsage || !strings.Contains(errOut, "--autostart takes on or off") {
		t.Errorf("--autostart yes exited %d with %q; want exit 2", code, errOut)
	}
}
