package archives

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The darwin binaries need cgo and a Mac, so the macOS archive is packed
// from stand-ins: a paddock that writes its command line to a log, and a
// paddock-lima and guest agent of a few bytes. codesign and id are fakes
// on PATH: codesign logs its command line and, asked for entitlements,
// prints the virtualization entitlement when FAKE_ENTITLED is set; id -u
// prints FAKE_UID (CI runs as root, and install.sh refuses root).
const (
	standInPaddock = "#!/bin/sh\necho \"$0 $*\" >>\"$FAKE_LOG\"\n"
	fakeCodesign   = "#!/bin/sh\necho \"codesign $*\" >>\"$FAKE_LOG\"\n" +
		"if [ \"$1\" = -d ] && [ -n \"$FAKE_ENTITLED\" ]; then\n" +
		"  echo '<?xml version=\"1.0\"?><plist><dict><key>com.apple.security.virtualization</key><true/></dict></plist>'\n" +
		"fi\n"
	fakeID = "#!/bin/sh\n[ \"$1\" = -u ] && echo \"$FAKE_UID\"\n"
)

// TestMacOSArchive packs the archive, checks its entries and modes, and
// installs, upgrades and uninstalls it into a prefix: the files placed
// with their modes, paddock-lima signed with the archive's entitlements
// when it lacks the entitlement and left alone when it has it, and the
// service and tray set up (and undone) through the placed paddock with
// command lines the CLI accepts.
func TestMacOSArchive(t *testing.T) {
	root := repoRoot(t)
	built := t.TempDir()
	writeFile(t, filepath.Join(built, "bin/paddock"), standInPaddock, 0o755)
	writeFile(t, filepath.Join(built, "bin/paddock-lima"), "stand-in paddock-lima", 0o644)
	writeFile(t, filepath.Join(built, "share/lima/lima-guestagent.Linux-aarch64"), "stand-in agent", 0o644)

	archive := filepath.Join(t.TempDir(), "paddock-9.8.7-darwin-arm64.tar.gz")
	run(t, 0, nil, filepath.Join(root, "packaging/macos/archive.sh"), built, archive)
	const top = "paddock-9.8.7-darwin-arm64/"
	modes := tarModes(t, archive)
	want := map[string]os.FileMode{
		top + "README.md":                                0o644,
		top + "bin/paddock":                              0o755,
		top + "bin/paddock-lima":                         0o755,
		top + "install.sh":                               0o755,
		top + "share/lima/lima-guestagent.Linux-aarch64": 0o644,
		top + "uninstall.sh":                             0o755,
		top + "vz.entitlements":                          0o644,
	}
	for name, mode := range want {
		if got, ok := modes[name]; !ok {
			t.Errorf("the archive lacks %s", name)
		} else if got != mode {
			t.Errorf("%s has mode %v in the archive, want %v", name, got, mode)
		}
	}
	for name := range modes {
		if _, ok := want[name]; !ok {
			t.Errorf("the archive holds %s, which it should not", name)
		}
	}

	unpacked := t.TempDir()
	run(t, 0, nil, "tar", "-xzf", archive, "-C", unpacked)
	src := filepath.Join(unpacked, top)
	fakes := t.TempDir()
	writeFile(t, filepath.Join(fakes, "codesign"), fakeCodesign, 0o755)
	writeFile(t, filepath.Join(fakes, "id"), fakeID, 0o755)
	prefix := filepath.Join(t.TempDir(), "usr local")
	paddock := filepath.Join(prefix, "bin/paddock")
	lima := filepath.Join(prefix, "bin/paddock-lima")
	logFile := filepath.Join(t.TempDir(), "calls")
	env := []string{"PATH=" + fakes + ":" + os.Getenv("PATH"), "FAKE_LOG=" + logFile, "FAKE_UID=501", "PREFIX="}
	calls := func() []string {
		data, _ := os.ReadFile(logFile)
		_ = os.Remove(logFile)
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}

	// A first install: nothing to stop, paddock-lima unsigned.
	run(t, 0, env, filepath.Join(src, "install.sh"), "--prefix", prefix)
	assertCalls(t, "first install", calls(), []string{
		"codesign -d --entitlements - --xml " + lima,
		"codesign --force --sign - --entitlements " + filepath.Join(src, "vz.entitlements") + " " + lima,
		paddock + " service install",
		paddock + " service start",
		paddock + " tray --autostart on",
	})
	for rel, mode := range map[string]os.FileMode{
		"bin/paddock":      0o755,
		"bin/paddock-lima": 0o755,
		"share/lima/lima-guestagent.Linux-aarch64": 0o644,
	} {
		placed := filepath.Join(prefix, rel)
		st, err := os.Stat(placed)
		if err != nil {
			t.Fatalf("install.sh placed no %s: %v", rel, err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", placed, st.Mode().Perm(), mode)
		}
		if got, want := readFile(t, placed), readFile(t, filepath.Join(src, rel)); got != want {
			t.Errorf("%s differs from the archive's", placed)
		}
	}

	// An upgrade, with a paddock-lima signed with the entitlement: the
	// daemon is stopped first, the signature kept.
	run(t, 0, append(env, "FAKE_ENTITLED=1"), filepath.Join(src, "install.sh"), "--prefix="+prefix)
	recorded := calls()
	assertCalls(t, "upgrade", recorded, []string{
		paddock + " shutdown",
		"codesign -d --entitlements - --xml " + lima,
		paddock + " service install",
		paddock + " service start",
		paddock + " tray --autostart on",
	})

	run(t, 0, env, filepath.Join(src, "install.sh"), "--prefix", prefix, "--no-service", "--no-tray")
	assertCalls(t, "install without service and tray", calls(), []string{
		paddock + " shutdown",
		"codesign -d --entitlements - --xml " + lima,
		"codesign --force --sign - --entitlements " + filepath.Join(src, "vz.entitlements") + " " + lima,
	})

	run(t, 0, env, filepath.Join(src, "uninstall.sh"), "--prefix", prefix)
	uninstall := calls()
	assertCalls(t, "uninstall", uninstall, []string{
		paddock + " tray --autostart off",
		paddock + " shutdown",
		paddock + " service uninstall",
	})
	for _, rel := range []string{"bin/paddock", "bin/paddock-lima", "share/lima"} {
		if _, err := os.Stat(filepath.Join(prefix, rel)); !os.IsNotExist(err) {
			t.Errorf("uninstall.sh left %s (%v)", rel, err)
		}
	}

	for _, c := range append(recorded, uninstall...) {
		if args, ok := strings.CutPrefix(c, paddock+" "); ok {
			cliAccepts(t, strings.Fields(args))
		}
	}

	// As root: refused, nothing placed.
	other := filepath.Join(t.TempDir(), "prefix")
	out := run(t, 2, append(env, "FAKE_UID=0"), filepath.Join(src, "install.sh"), "--prefix", other)
	if !strings.Contains(out, "not as root") {
		t.Errorf("install.sh as root says:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(other, "bin")); !os.IsNotExist(err) {
		t.Errorf("install.sh as root placed files in %s", other)
	}
}

func assertCalls(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s ran\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// tarModes lists a gzipped tarball's regular files with their modes.
func tarModes(t *testing.T, path string) map[string]os.FileMode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	modes := map[string]os.FileMode{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return modes
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			modes[strings.TrimPrefix(h.Name, "./")] = os.FileMode(h.Mode).Perm()
		}
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
