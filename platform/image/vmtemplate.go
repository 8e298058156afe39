package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lima-vm/lima/pkg/downloader"
	"sigs.k8s.io/yaml"
)

// vmSettings completes a built image's template fragment into a template
// for a VM of its own: a size that boots under emulation, no host
// directories shared, and the user the image's lima-init creates, named
// explicitly (Lima would name it after the host's user, which may be root,
// which Lima refuses).
const vmSettings = `cpus: 2
memory: 1GiB
disk: 4GiB
mounts: []
ssh: {loadDotSSHPubKeys: false}
user: {name: paddock, uid: 1000}
`

// SourceTemplate returns a complete Lima template for a VM that boots the
// guest image s, the one the App boots (see Find): a built image as
// VMTemplate completes it, or a cloud disk booted by its own boot loader,
// named by its local file — for a published image, the copy the daemon
// downloaded when there is one, else its URL and digest, for Lima to
// download and check.
func SourceTemplate(s Source) ([]byte, error) {
	if s.Dir != "" {
		return VMTemplate(s.Dir)
	}
	location, digest := s.Disk, s.Digest
	if s.Remote() {
		if cache, err := DownloadCache(); err == nil {
			res, err := downloader.Cached(s.Disk, downloader.WithCacheDir(cache), downloader.WithExpectedDigest(s.Digest))
			if err == nil && res.CachePath != "" {
				location, digest = res.CachePath, ""
			}
		}
	}
	img := map[string]any{"location": location, "arch": s.Arch}
	if digest != "" {
		img["digest"] = digest.String()
	}
	// Lima would install containerd into a cloud image by default, from
	// the network; the guest image's engines are the App's business.
	tmpl := map[string]any{"arch": s.Arch, "images": []any{img}, "containerd": map[string]any{"system": false, "user": false}}
	if s.Arch == "x86_64" {
		// Debian's cloud images boot by BIOS, as the App's do: no UEFI
		// firmware package is needed on the host.
		tmpl["firmware"] = map[string]any{"legacyBIOS": true}
	}
	body, err := yaml.Marshal(tmpl)
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("# A VM booting the guest image %s.\n# Change cpus, memory, disk and the rest here, or with paddock vm create --param.\n", s)
	return append(append([]byte(header), body...), vmSettings...), nil
}

// VMTemplate returns a complete Lima template for a VM that boots the
// image that platform/linux/guestimage/build.sh built in dir; empty dir
// takes the newest in the image cache.
func VMTemplate(dir string) ([]byte, error) {
	if dir == "" {
		built, err := Built()
		if err != nil {
			return nil, err
		}
		if len(built) == 0 {
			cache, _ := BuiltCache()
			return nil, fmt.Errorf("no guest image in %s: build one with platform/linux/guestimage/build.sh in Paddock's source (it prints its directory); with Paddock installed from a package, 'paddock vm create NAME' without --template boots the image the App boots, Debian's published one", cache)
		}
		dir = built[0]
	}
	fragment, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is no guest image directory (one that platform/linux/guestimage/build.sh printed): it has no template.yaml", dir)
	}
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("# A VM booting the guest image in %s\n# (platform/linux/guestimage/build.sh). Change cpus, memory, disk and the rest\n# here, or with paddock vm create --param.\n", dir)
	if len(fragment) > 0 && fragment[len(fragment)-1] != '\n' {
		fragment = append(fragment, '\n')
	}
	return append(append([]byte(header), fragment...), vmSettings...), nil
}
