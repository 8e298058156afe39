package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
)

// Boot returns the function the App's template (apptemplate.Template)
// calls at each render for the image to boot: a built image read from its
// template fragment (LoadBuilt), or the disk, brought onto the host by f
// first when it is remote. While it downloads, the function answers an
// *app.PendingError that says how far it got.
func (f *Fetcher) Boot(s Source) func() (apptemplate.Image, error) {
	return func() (apptemplate.Image, error) {
		if s.Dir != "" {
			return LoadBuilt(s.Dir)
		}
		disk, err := f.Local(context.Background(), s)
		var downloading *DownloadingError
		if errors.As(err, &downloading) {
			return apptemplate.Image{}, &app.PendingError{Reason: resource.ReasonDownloading, Message: downloading.Error()}
		}
		if err != nil {
			return apptemplate.Image{}, fmt.Errorf("%w (without a network, build an image with platform/linux/guestimage/build.sh in Paddock's source, or copy Debian's cloud image onto this machine and name its file with paddock service install --image, or paddock serve --image)", err)
		}
		// Fetcher checked a remote disk's digest; the local copy needs no
		// second check by Lima.
		return apptemplate.Image{File: apptemplate.File{Location: disk}, Arch: s.Arch}, nil
	}
}

// LoadBuilt reads the image in dir, one that
// platform/linux/guestimage/build.sh built, from the template fragment
// beside it: its disk, and the kernel and initrd it boots directly; or,
// built with --wsl, its root file system tarball.
func LoadBuilt(dir string) (apptemplate.Image, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
	if err != nil {
		return apptemplate.Image{}, fmt.Errorf("guest image %s: %w", dir, err)
	}
	var fragment struct {
		Images []apptemplate.Image `json:"images"`
	}
	if err := yaml.Unmarshal(raw, &fragment); err != nil {
		return apptemplate.Image{}, fmt.Errorf("guest image %s: template.yaml: %w", dir, err)
	}
	if len(fragment.Images) == 0 {
		return apptemplate.Image{}, fmt.Errorf("guest image %s: template.yaml names no images", dir)
	}
	img := fragment.Images[0]
	// WSL2 boots its own kernel; every other VM type the image's.
	if img.Kernel == nil && !isTarball(img.Location) {
		return apptemplate.Image{}, fmt.Errorf("guest image %s: template.yaml's image has no kernel: the image must boot by direct kernel boot", dir)
	}
	return img, nil
}
