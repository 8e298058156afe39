package archives

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/pe"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWindowsZip builds the Windows zip as a release would, with a WSL
// image given, and checks what Windows would unpack: each file where
// install.ps1 and the daemon look for it, paddock.exe and paddock-lima.exe
// console programs for amd64 stamped with the version, the guest agent a
// Linux amd64 program, the scripts as in the repository.
func TestWindowsZip(t *testing.T) {
	if _, err := exec.LookPath("zip"); err != nil {
		t.Fatal("packaging/windows/zip.sh needs zip (Debian: apt-get install zip)")
	}
	root := repoRoot(t)
	dist := t.TempDir()
	img := filepath.Join(t.TempDir(), "paddock-wsl.tar.gz")
	writeTarGz(t, img, map[string]string{"etc/os-release": "ID=stand-in\n"})

	out := run(t, 0, []string{"PADDOCK_VERSION=9.8.7", "PADDOCK_DIST=" + dist, "PADDOCK_WSL_IMAGE=" + img},
		filepath.Join(root, "packaging/windows/zip.sh"))
	zipPath := filepath.Join(dist, "paddock-9.8.7-windows-amd64.zip")
	if strings.TrimSpace(out) != zipPath {
		t.Errorf("zip.sh printed %q, want the zip's path %s", out, zipPath)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()

	const top = "paddock-9.8.7-windows-amd64/"
	files := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, top) {
			t.Errorf("%s is outside the zip's one folder %s", f.Name, top)
		}
		if !f.FileInfo().IsDir() {
			files[strings.TrimPrefix(f.Name, top)] = f
			names = append(names, strings.TrimPrefix(f.Name, top))
		}
	}
	slices.Sort(names)
	want := []string{
		"README.md",
		"bin/paddock-lima.exe",
		"bin/paddock.exe",
		"image/paddock-wsl.tar.gz",
		"install.ps1",
		"share/lima/lima-guestagent.Linux-x86_64",
		"uninstall.ps1",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("the zip holds\n  %s\nwant\n  %s", strings.Join(names, "\n  "), strings.Join(want, "\n  "))
	}
	t.Logf("%s: %d files", zipPath, len(names))

	for _, exe := range []string{"bin/paddock.exe", "bin/paddock-lima.exe"} {
		data := readZipFile(t, files[exe])
		f, err := pe.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is no PE file: %v", exe, err)
		}
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
			t.Errorf("%s is for machine %#x, want amd64", exe, f.Machine)
		}
		oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
		if !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
			t.Errorf("%s is no 64-bit console program: %T %+v", exe, f.OptionalHeader, f.OptionalHeader)
		}
		f.Close()
		if exe == "bin/paddock.exe" && !bytes.Contains(data, []byte("v9.8.7")) {
			t.Errorf("%s is not stamped with version v9.8.7", exe)
		}
	}

	agent, err := elf.NewFile(bytes.NewReader(readZipFile(t, files["share/lima/lima-guestagent.Linux-x86_64"])))
	if err != nil {
		t.Fatalf("the guest agent is no ELF file: %v", err)
	}
	if agent.Machine != elf.EM_X86_64 || agent.Class != elf.ELFCLASS64 {
		t.Errorf("the guest agent is for %v %v, want a 64-bit x86-64 Linux program", agent.Class, agent.Machine)
	}
	agent.Close()

	for zipName, repoName := range map[string]string{
		"image/paddock-wsl.tar.gz": img,
		"install.ps1":              filepath.Join(root, "packaging/windows/install.ps1"),
		"uninstall.ps1":            filepath.Join(root, "packaging/windows/uninstall.ps1"),
		"README.md":                filepath.Join(root, "packaging/windows/README.md"),
	} {
		src, err := os.ReadFile(repoName)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readZipFile(t, files[zipName]), src) {
			t.Errorf("%s in the zip differs from %s", zipName, repoName)
		}
	}
}

// TestWindowsZipRefusesAnImageWSLCannotBoot: WSL2 imports a root file
// system tarball; zip.sh says so, before building anything, of another
// file or a missing one.
func TestWindowsZipRefusesAnImageWSLCannotBoot(t *testing.T) {
	root := repoRoot(t)
	disk := filepath.Join(t.TempDir(), "disk.qcow2")
	if err := os.WriteFile(disk, []byte("stand-in"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, img := range []string{disk, filepath.Join(t.TempDir(), "missing.tar.gz")} {
		dist := t.TempDir()
		out := run(t, 2, []string{"PADDOCK_DIST=" + dist, "PADDOCK_WSL_IMAGE=" + img},
			filepath.Join(root, "packaging/windows/zip.sh"))
		if !strings.Contains(out, img) {
			t.Errorf("zip.sh's refusal does not name %s:\n%s", img, out)
		}
		if left, _ := os.ReadDir(dist); len(left) > 0 {
			t.Errorf("zip.sh refused %s but left %v in its output directory", img, left)
		}
	}
}

func readZipFile(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeTarGz writes a gzipped tarball of the named files and contents.
func writeTarGz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
