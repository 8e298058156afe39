package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/opencontainers/go-digest"
)

// EnvImage is the fallback of the daemon's --image flag: the guest image
// the App boots.
const EnvImage = "PADDOCK_APP_IMAGE"

// Source is a guest image the App can boot: a built image directory (Dir)
// or a cloud disk image (Disk).
type Source struct {
	// Dir is a directory that platform/linux/guestimage/build.sh made: its
	// template.yaml fragment names the disk, kernel and initrd, and its
	// container engines are installed.
	Dir string
	// Disk is a cloud disk image (qcow2 or raw; for WSL2 a root file
	// system tarball) booted by its own boot loader (WSL2's kernel),
	// whose container engine is installed at its first boot: a
	// local file, or an http(s) URL that Fetcher downloads and checks
	// against Digest.
	Disk   string
	Digest digest.Digest
	// Arch is Lima's name of the disk's architecture (x86_64, aarch64).
	Arch string
}

// Remote reports whether the image must be downloaded first.
func (s Source) Remote() bool {
	return strings.HasPrefix(s.Disk, "https://") || strings.HasPrefix(s.Disk, "http://")
}

// String names the image for a person.
func (s Source) String() string {
	if s.Dir != "" {
		return s.Dir
	}
	return s.Disk
}

// Choose is the rule for the App's image on a host of goos and goarch: the
// override when set (a URL or a file with a disk image's extension is a
// disk, anything else a built image directory), else the first of built
// (the built image directories, newest first), else the published Debian
// image for goarch. Windows has no published image: WSL2 boots a root file
// system tarball, which Debian does not publish.
func Choose(override string, built []string, goos, goarch string) (Source, error) {
	arch := limaArch(goarch)
	switch {
	case override == "":
	case strings.Contains(override, "://") || isDiskFile(override):
		return Source{Disk: override, Arch: arch}, nil
	default:
		return Source{Dir: override}, nil
	}
	if len(built) > 0 {
		return Source{Dir: built[0]}, nil
	}
	if goos == "windows" {
		return Source{}, errors.New("no WSL2 root file system for the App: install Paddock from a Windows zip that carries one (its image folder), or build one on a Linux machine with 'platform/linux/guestimage/build.sh --wsl' in Paddock's source, copy the rootfs.tar.gz it makes here, and name it with --image")
	}
	if s, ok := published[goarch]; ok {
		return s, nil
	}
	return Source{}, fmt.Errorf("no published guest image for %s: build one with platform/linux/guestimage/build.sh in Paddock's source, or, with Paddock installed from a package, download a Debian 12 cloud image for %s and name its file with --image", goarch, goarch)
}

// isDiskFile reports whether path names a disk image, or a root file
// system tarball (.tar, .tar.gz, ...), which WSL2 boots.
func isDiskFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".qcow2", ".img", ".raw":
		return true
	}
	return isTarball(path)
}

// isTarball reports whether path names a tarball (.tar, .tar.gz, ...).
func isTarball(path string) bool {
	return strings.Contains(strings.ToLower(filepath.Base(path)), ".tar")
}

func limaArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return goarch
}

// Find chooses the App's image on this host (Choose, with the image cache's
// built images; on Windows, with none built, the root file system that the
// Windows zip installs) and checks that an override names something there.
func Find(override, goarch string) (Source, error) {
	built, err := Built()
	if err != nil {
		return Source{}, err
	}
	s, err := Choose(override, built, runtime.GOOS, goarch)
	if err != nil && override == "" && runtime.GOOS == "windows" {
		if exe, xerr := os.Executable(); xerr == nil {
			if tarballs := shipped(exe); len(tarballs) > 0 {
				return Source{Disk: tarballs[0], Arch: limaArch(goarch)}, nil
			}
		}
	}
	if err != nil || override == "" {
		return s, err
	}
	switch {
	case s.Dir != "":
		if _, err := os.Stat(filepath.Join(s.Dir, "template.yaml")); err != nil {
			return Source{}, fmt.Errorf("image %s is no guest image directory (one that platform/linux/guestimage/build.sh printed) nor a disk image file (.qcow2, .img, .raw) or root file system tarball (.tar.gz): %w", override, err)
		}
	case s.Remote():
		return Source{}, fmt.Errorf("image %s: a download must be checked against a digest, which a URL does not carry: download the image, check it, and name the file", override)
	default:
		if _, err := os.Stat(s.Disk); err != nil {
			return Source{}, fmt.Errorf("image %s: %w", override, err)
		}
	}
	return s, nil
}

// Built returns the image directories in the image cache that this host's
// VMs boot, newest first: on Windows the WSL2 root file systems, elsewhere
// the others.
func Built() ([]string, error) {
	cache, err := BuiltCache()
	if err != nil {
		return nil, err
	}
	return builtIn(cache, runtime.GOOS == "windows"), nil
}

// shipped returns the root file system tarballs in the image folder beside
// the bin folder of exe, as the Windows zip installs them (image\ beside
// bin\paddock.exe): what the App boots when nothing was built here.
func shipped(exe string) []string {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(exe)), "image", "*.tar*"))
	return matches
}

// wslPrefix begins the name of the directories that build.sh --wsl makes.
const wslPrefix = "wsl-"

// builtIn returns the image directories in cache, the WSL2 root file
// systems or the others, newest first.
func builtIn(cache string, wsl bool) []string {
	matches, _ := filepath.Glob(filepath.Join(cache, "*", "template.yaml"))
	sort.Slice(matches, func(i, j int) bool { return modTime(matches[i]) > modTime(matches[j]) })
	var dirs []string
	for _, m := range matches {
		if dir := filepath.Dir(m); strings.HasPrefix(filepath.Base(dir), wslPrefix) == wsl {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// EnvImageCache names a directory of the user's own that holds the built
// images instead of the user's cache directory.
const EnvImageCache = "PADDOCK_IMAGE_CACHE"

// BuiltCache is where platform/linux/guestimage/build.sh keeps its images:
// $PADDOCK_IMAGE_CACHE, else paddock/images in the user's cache directory.
func BuiltCache() (string, error) {
	if dir := os.Getenv(EnvImageCache); dir != "" {
		return dir, nil
	}
	return userCache("images")
}

// DownloadCache is where Fetcher keeps downloaded images: paddock/downloads
// in the user's cache directory.
func DownloadCache() (string, error) { return userCache("downloads") }

// userCache returns paddock/sub under $XDG_CACHE_HOME (~/.cache), the same
// rule build.sh follows.
func userCache(sub string) (string, error) {
	if dir := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "paddock", sub), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "paddock", sub), nil
}

func modTime(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}
