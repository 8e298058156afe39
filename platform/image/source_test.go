package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChooseTakesTheOverrideThenTheNewestBuiltThenDebian(t *testing.T) {
	for _, c := range []struct {
		name, override string
		built          []string
		goarch         string
		want           Source
	}{
		{"a built directory named", "/img/a", []string{"/cache/b"}, "amd64", Source{Dir: "/img/a"}},
		{"a disk file named", "/img/debian.qcow2", []string{"/cache/b"}, "amd64", Source{Disk: "/img/debian.qcow2", Arch: "x86_64"}},
		{"a URL named", "https://example.org/d.img", nil, "arm64", Source{Disk: "https://example.org/d.img", Arch: "aarch64"}},
		{"a WSL2 root file system tarball named", `C:\Users\Jane Doe\rootfs.tar.gz`, nil, "amd64", Source{Disk: `C:\Users\Jane Doe\rootfs.tar.gz`, Arch: "x86_64"}},
		{"the newest built", "", []string{"/cache/new", "/cache/old"}, "amd64", Source{Dir: "/cache/new"}},
		{"Debian on amd64", "", nil, "amd64", published["amd64"]},
		{"Debian on arm64", "", nil, "arm64", published["arm64"]},
	} {
		got, err := Choose(c.override, c.built, "linux", c.goarch)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v", c.name, got, err)
		}
	}
	if _, err := Choose("", nil, "linux", "riscv64"); err == nil || !strings.Contains(err.Error(), "build.sh") {
		t.Errorf("no image for riscv64: %v", err)
	}
}

func TestPublishedImagesArePinnedDatedDebianReleasesWithSHA512(t *testing.T) {
	for goarch, s := range published {
		if !strings.HasPrefix(s.Disk, "https://cloud.debian.org/images/cloud/bookworm/2") || !strings.Contains(s.Disk, "genericcloud-"+goarch) {
			t.Errorf("%s: %s is no dated Debian 12 genericcloud image", goarch, s.Disk)
		}
		if s.Digest.Algorithm() != "sha512" || s.Digest.Validate() != nil || !s.Remote() {
			t.Errorf("%s: digest %s", goarch, s.Digest)
		}
	}
}

func TestFindNamesAnOverrideThatIsNotThere(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("PADDOCK_IMAGE_CACHE", cache)
	if _, err := Find(filepath.Join(cache, "none"), "amd64"); err == nil || !strings.Contains(err.Error(), "build.sh") {
		t.Errorf("a missing directory: %v", err)
	}
	if _, err := Find(filepath.Join(cache, "none.qcow2"), "amd64"); err == nil || !strings.Contains(err.Error(), "none.qcow2") {
		t.Errorf("a missing disk: %v", err)
	}
	if _, err := Find("https://example.org/debian.qcow2", "amd64"); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a URL without a digest: %v", err)
	}
	for _, name := range []string{"old", "new"} {
		if err := os.MkdirAll(filepath.Join(cache, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cache, name, "template.yaml"), []byte("images: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := mustStat(t, filepath.Join(cache, "new", "template.yaml")).ModTime().Add(-3600e9)
	if err := os.Chtimes(filepath.Join(cache, "old", "template.yaml"), past, past); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("", "amd64"); err != nil || got.Dir != filepath.Join(cache, "new") {
		t.Errorf("the newest built: %+v, %v", got, err)
	}
	if got, err := Find(filepath.Join(cache, "old"), "amd64"); err != nil || got.Dir != filepath.Join(cache, "old") {
		t.Errorf("an override: %+v, %v", got, err)
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Windows boots WSL2 root file systems, which Debian does not publish:
// with none built, the App's image is an error that says how to get one,
// never the cloud disk WSL2 refuses.
func TestChooseOnWindowsTakesABuiltRootFileSystemOrSaysHowToGetOne(t *testing.T) {
	if got, err := Choose("", []string{`C:\cache\wsl-1`}, "windows", "amd64"); err != nil || got.Dir != `C:\cache\wsl-1` {
		t.Errorf("a built root file system: %+v, %v", got, err)
	}
	if got, err := Choose("", nil, "windows", "amd64"); err == nil || !strings.Contains(err.Error(), "build.sh --wsl") {
		t.Errorf("none built: %+v, %v", got, err)
	}
}

// The image cache holds both kinds that build.sh makes: each host takes
// its own, newest first.
func TestBuiltTakesTheHostsKind(t *testing.T) {
	cache := t.TempDir()
	for _, name := range []string{"aaaa", "wsl-bbbb"} {
		if err := os.MkdirAll(filepath.Join(cache, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cache, name, "template.yaml"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := builtIn(cache, false); len(got) != 1 || filepath.Base(got[0]) != "aaaa" {
		t.Errorf("QEMU's: %q", got)
	}
	if got := builtIn(cache, true); len(got) != 1 || filepath.Base(got[0]) != "wsl-bbbb" {
		t.Errorf("WSL2's: %q", got)
	}
}

// The Windows zip installs bin\paddock.exe and image\*.tar.gz side by side:
// the daemon finds the image from its executable.
func TestShippedFindsTheZipsImageBesideBin(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"bin/paddock.exe", "image/rootfs.tar.gz"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := shipped(filepath.Join(dir, "bin", "paddock.exe")); len(got) != 1 || got[0] != filepath.Join(dir, "image", "rootfs.tar.gz") {
		t.Errorf("shipped = %q", got)
	}
	if got := shipped(filepath.Join(t.TempDir(), "bin", "paddock.exe")); len(got) != 0 {
		t.Errorf("an install without an image: %q", got)
	}
}
