package apptemplate

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/image"
)

//go:embed app.yaml
var base []byte

//go:embed moby.sh
var mobyScript string

//go:embed containerd.sh
var containerdScript string

//go:embed install.sh
var installScript string

// engine is what a container engine adds to the template.
type engine struct {
	unit        string // started from the kernel command line
	guestSocket string
	script      string // a system provisioning script, run at every boot
}

var engines = map[string]engine{
	resource.EngineMoby:       {unit: "docker.service", guestSocket: "/run/docker.sock", script: mobyScript},
	resource.EngineContainerd: {unit: "containerd.service", guestSocket: "/run/containerd/containerd.sock", script: containerdScript},
}

// Template renders the App's template for one instance.
type Template struct {
	// ShortDir is the instance's short directory, where the engine's
	// socket is forwarded.
	ShortDir string
	// Image is the guest image the VM boots.
	Image image.Source
	// Disks brings a remote disk image onto the host.
	Disks *image.Fetcher
}

var _ app.Template = Template{}

// New returns the template for the instance whose short directory is
// shortDir, booting src (image.Find's choice when the daemon starts: an
// image built while the daemon runs would otherwise restart a running App
// into it). Remote images are downloaded into the download cache.
func New(shortDir string, src image.Source) (Template, error) {
	cache, err := image.DownloadCache()
	if err != nil {
		return Template{}, err
	}
	return Template{ShortDir: shortDir, Image: src, Disks: &image.Fetcher{Cache: cache}}, nil
}

// Render returns the complete template of the App's VM running engine. While
// a remote image downloads, it answers an *app.PendingError that says how far
// the download got.
func (t Template) Render(engineName string) ([]byte, error) {
	e, ok := engines[engineName]
	if !ok {
		return nil, fmt.Errorf("unknown container engine %q", engineName)
	}
	tmpl, provision, err := t.boot(e)
	if err != nil {
		return nil, err
	}
	var over map[string]any
	if err := yaml.Unmarshal(base, &over); err != nil {
		return nil, err
	}
	for k, v := range over {
		tmpl[k] = v
	}
	tmpl["provision"] = append(provision, map[string]any{"mode": "system", "script": e.script})
	tmpl["portForwards"] = []any{map[string]any{
		"guestSocket": e.guestSocket,
		"hostSocket":  app.EngineSocket(t.ShortDir, engineName),
	}}
	return yaml.Marshal(tmpl)
}

// boot returns how the VM boots its image: a built image's template
// fragment with the engine started from the kernel command line, or a
// cloud disk booted by its own boot loader, with a provisioning script that
// installs and starts the engine.
func (t Template) boot(e engine) (map[string]any, []any, error) {
	if dir := t.Image.Dir; dir != "" {
		raw, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
		if err != nil {
			return nil, nil, fmt.Errorf("guest image %s: %w", dir, err)
		}
		var tmpl map[string]any
		if err := yaml.Unmarshal(raw, &tmpl); err != nil {
			return nil, nil, fmt.Errorf("guest image %s: template.yaml: %w", dir, err)
		}
		if err := wantUnit(tmpl, e.unit); err != nil {
			return nil, nil, fmt.Errorf("guest image %s: %w", dir, err)
		}
		return tmpl, []any{}, nil
	}
	disk, err := t.Disks.Local(context.Background(), t.Image)
	var downloading *image.DownloadingError
	if errors.As(err, &downloading) {
		return nil, nil, &app.PendingError{Reason: app.ReasonDownloading, Message: downloading.Error()}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w (without a network, build an image with platform/linux/guestimage/build.sh, or name one with paddock serve --image)", err)
	}
	tmpl := map[string]any{
		"vmType": "qemu",
		"arch":   t.Image.Arch,
		"images": []any{map[string]any{"location": disk, "arch": t.Image.Arch}},
		// Debian's cloud images boot by BIOS too, which needs no UEFI
		// firmware package on the host (x86_64 only; Lima ignores it
		// elsewhere).
		"firmware": map[string]any{"legacyBIOS": true},
	}
	install := strings.ReplaceAll(installScript, "{{UNIT}}", e.unit)
	return tmpl, []any{map[string]any{"mode": "system", "script": install}}, nil
}

// wantUnit adds systemd.wants=unit to the kernel command line of each of
// the template's images: the engine starts in the boot's first
// transaction, beside everything else.
func wantUnit(tmpl map[string]any, unit string) error {
	images, _ := tmpl["images"].([]any)
	if len(images) == 0 {
		return errors.New("template.yaml names no images")
	}
	for _, img := range images {
		kernel, _ := img.(map[string]any)["kernel"].(map[string]any)
		if kernel == nil {
			return errors.New("template.yaml's image has no kernel: the image must boot by direct kernel boot")
		}
		cmdline, _ := kernel["cmdline"].(string)
		kernel["cmdline"] = strings.TrimSpace(cmdline + " systemd.wants=" + unit)
	}
	return nil
}
