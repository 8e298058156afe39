package apptemplate

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
)

// EnvImage names the guest image directory the App boots (one that
// platform/linux/guestimage/build.sh printed), overriding the search of the
// image cache.
const EnvImage = "PADDOCK_APP_IMAGE"

//go:embed app.yaml
var base []byte

//go:embed moby.sh
var mobyScript string

//go:embed containerd.sh
var containerdScript string

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
	// Image is the guest image directory; empty finds the newest in the
	// image cache (or EnvImage's) at each render, so an image built after
	// the daemon started is taken.
	Image string
}

var _ app.Template = Template{}

// New returns the template for the instance whose short directory is
// shortDir, on the guest image FindImage finds now. The image is chosen
// once: an image built while the daemon runs would otherwise restart a
// running App into it. When there is none yet, each render looks again
// (and says what to do), so that the App boots one built later.
func New(shortDir string) Template {
	image, err := FindImage()
	if err != nil {
		image = ""
	}
	return Template{ShortDir: shortDir, Image: image}
}

// Render returns the complete template of the App's VM running engine.
func (t Template) Render(engineName string) ([]byte, error) {
	e, ok := engines[engineName]
	if !ok {
		return nil, fmt.Errorf("unknown container engine %q", engineName)
	}
	dir := t.Image
	if dir == "" {
		var err error
		if dir, err = FindImage(); err != nil {
			return nil, err
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
	if err != nil {
		return nil, fmt.Errorf("guest image %s: %w", dir, err)
	}
	var tmpl map[string]any
	if err := yaml.Unmarshal(raw, &tmpl); err != nil {
		return nil, fmt.Errorf("guest image %s: template.yaml: %w", dir, err)
	}
	if err := wantUnit(tmpl, e.unit); err != nil {
		return nil, fmt.Errorf("guest image %s: %w", dir, err)
	}
	var over map[string]any
	if err := yaml.Unmarshal(base, &over); err != nil {
		return nil, err
	}
	for k, v := range over {
		tmpl[k] = v
	}
	tmpl["provision"] = []any{map[string]any{"mode": "system", "script": e.script}}
	tmpl["portForwards"] = []any{map[string]any{
		"guestSocket": e.guestSocket,
		"hostSocket":  app.EngineSocket(t.ShortDir, engineName),
	}}
	return yaml.Marshal(tmpl)
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

// FindImage returns the guest image directory: EnvImage when set, else the
// image most recently built in the image cache.
func FindImage() (string, error) {
	if dir := os.Getenv(EnvImage); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "template.yaml")); err != nil {
			return "", fmt.Errorf("%s=%s is no guest image directory: %w", EnvImage, dir, err)
		}
		return dir, nil
	}
	cache, err := imageCache()
	if err != nil {
		return "", err
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "*", "template.yaml"))
	if len(matches) == 0 {
		return "", fmt.Errorf("no guest image in %s: build one with platform/linux/guestimage/build.sh, or set %s to an image directory", cache, EnvImage)
	}
	sort.Slice(matches, func(i, j int) bool { return modTime(matches[i]) > modTime(matches[j]) })
	return filepath.Dir(matches[0]), nil
}

// imageCache is where platform/linux/guestimage/build.sh keeps its images.
func imageCache() (string, error) {
	if dir := os.Getenv("PADDOCK_IMAGE_CACHE"); dir != "" {
		return dir, nil
	}
	if dir := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "paddock", "images"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cache", "paddock", "images"), nil
}

func modTime(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.ModTime().UnixNano()
}
