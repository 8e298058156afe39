package apptemplate

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
)

// The VM types of Lima's drivers that an App runs on.
const (
	QEMU = "qemu"
	VZ   = "vz"
	WSL2 = "wsl2"
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
	unit        string // the systemd unit that runs it
	guestSocket string
	script      string // a system provisioning script, run at every boot
}

var engines = map[string]engine{
	resource.EngineMoby:       {unit: "docker.service", guestSocket: "/run/docker.sock", script: mobyScript},
	resource.EngineContainerd: {unit: "containerd.service", guestSocket: "/run/containerd/containerd.sock", script: containerdScript},
}

// File is a file Lima fetches for the VM: a local path or a URL, and the
// digest ("sha256:...") it must have, if known.
type File struct {
	Location string `json:"location"`
	Digest   string `json:"digest,omitempty"`
}

// Kernel is a kernel that QEMU boots directly, with its command line.
type Kernel struct {
	File
	Cmdline string `json:"cmdline,omitempty"`
}

// Image is the guest image the App boots: a disk image (qcow2 or raw) for
// qemu and vz, a root file system tarball for wsl2.
type Image struct {
	File
	// Arch is the image's architecture as Lima names it: x86_64, aarch64.
	Arch string `json:"arch"`
	// Kernel and Initrd, when set, are booted directly (qemu only): the
	// image is one that platform/linux/guestimage built, with its engines
	// installed, and the engine's unit is started from the kernel command
	// line, in the boot's first transaction. An image without them boots
	// by its own boot loader and carries no engine: a script installs it
	// at the first boot and starts it.
	Kernel *Kernel `json:"kernel,omitempty"`
	Initrd *File   `json:"initrd,omitempty"`
}

// Target is the VM type the host runs the App on, and what it offers.
type Target struct {
	VMType string // QEMU, VZ or WSL2
	// Rosetta runs x86_64 binaries in an aarch64 guest (vz on Apple
	// silicon with Rosetta installed).
	Rosetta bool
}

// Input is what a rendering takes from the instance.
type Input struct {
	// Instance is the instance's name; it names the Windows pipe.
	Instance string
	// ShortDir is the instance's short directory, where the engine's
	// socket is forwarded (resource.EngineForward).
	ShortDir string
	// Engine is resource.EngineMoby or resource.EngineContainerd.
	Engine string
	Image  Image
	// Mounts are the host folders the VM shares, each at the same path in
	// the guest (the App's spec.mounts; nil for none). WSL2 shares the
	// Windows drives itself and takes no list.
	Mounts []resource.AppMount
	// MountType is how QEMU shares them: resource.MountType9p or
	// MountTypeReverseSSHFS; empty for resource.DefaultQEMUMountType.
	// VZ always shares by virtiofs.
	MountType string
	// UID is the host user's id, which the guest user takes, so that
	// files in shared folders belong to the guest user as they belong to
	// the host user; 0 (root, which is no guest user) or less (Windows)
	// leaves the template's.
	UID int
}

// Socket is the Docker endpoint of the instance whose short directory is
// shortDir where the daemon serves Docker on a Unix socket in front of
// the VM's forward (Linux, macOS): unix://SHORTDIR/docker.sock.
func Socket(shortDir string) string {
	return "unix://" + resource.EngineSocket(shortDir, resource.EngineMoby)
}

// Pipe is the named pipe through which Windows reaches the engine of
// instance, as a Docker endpoint: npipe:////./pipe/paddock-INSTANCE.
func Pipe(instance string) string {
	return "npipe:////./pipe/paddock-" + instance
}

// PipePath is Pipe as a Windows path: \\.\pipe\paddock-INSTANCE.
func PipePath(instance string) string {
	return `\\.\pipe\paddock-` + instance
}

// Render returns the complete template of the App's VM on target.
func Render(in Input, target Target) ([]byte, error) {
	e, ok := engines[in.Engine]
	if !ok {
		return nil, fmt.Errorf("unknown container engine %q", in.Engine)
	}
	if in.ShortDir == "" || in.Instance == "" {
		return nil, errors.New("the App's template needs the instance's name and short directory")
	}
	img := in.Image
	if img.Location == "" || img.Arch == "" {
		return nil, errors.New("the guest image has no location or no architecture")
	}
	var tmpl map[string]any
	if err := yaml.Unmarshal(base, &tmpl); err != nil {
		return nil, err
	}
	tmpl["vmType"] = target.VMType
	tmpl["arch"] = img.Arch
	image := map[string]any{"location": img.Location, "arch": img.Arch}
	if img.Digest != "" {
		image["digest"] = img.Digest
	}
	provision := []any{}
	switch {
	case img.Kernel != nil:
		if target.VMType != QEMU {
			return nil, fmt.Errorf("the guest image boots its kernel directly, which only vmType %s does, not %s", QEMU, target.VMType)
		}
		kernel := map[string]any{"location": img.Kernel.Location, "arch": img.Arch,
			"cmdline": strings.TrimSpace(img.Kernel.Cmdline + " systemd.wants=" + e.unit)}
		if img.Kernel.Digest != "" {
			kernel["digest"] = img.Kernel.Digest
		}
		image["kernel"] = kernel
		if img.Initrd != nil {
			initrd := map[string]any{"location": img.Initrd.Location, "arch": img.Arch}
			if img.Initrd.Digest != "" {
				initrd["digest"] = img.Initrd.Digest
			}
			image["initrd"] = initrd
		}
	default:
		provision = append(provision, map[string]any{"mode": "system", "script": strings.ReplaceAll(installScript, "{{UNIT}}", e.unit)})
	}
	tmpl["images"] = []any{image}
	if in.UID > 0 {
		tmpl["user"].(map[string]any)["uid"] = in.UID
	}
	if err := addVMType(tmpl, in, target); err != nil {
		return nil, err
	}
	tmpl["provision"] = append(provision, map[string]any{"mode": "system", "script": e.script})
	tmpl["portForwards"] = []any{map[string]any{
		"guestSocket": e.guestSocket,
		"hostSocket":  resource.EngineForward(in.ShortDir, in.Engine),
	}}
	return yaml.Marshal(tmpl)
}

// addVMType adds what target's VM type needs.
func addVMType(tmpl map[string]any, in Input, target Target) error {
	img := in.Image
	switch target.VMType {
	case QEMU:
		switch in.MountType {
		case "":
			tmpl["mountType"] = resource.DefaultQEMUMountType
		case resource.MountType9p, resource.MountTypeReverseSSHFS:
			tmpl["mountType"] = in.MountType
		default:
			return fmt.Errorf("unknown mount type %q: use %s", in.MountType, strings.Join(resource.MountTypes, " or "))
		}
		tmpl["mounts"] = mounts(in.Mounts)
		if img.Arch == "x86_64" {
			// The guest gets every CPU feature QEMU has (the host's
			// under KVM or HVF).
			tmpl["cpuType"] = map[string]any{img.Arch: "max"}
			// A kernel booted directly needs no firmware, and Debian's
			// cloud images boot by BIOS too: no UEFI firmware package
			// is needed on the host.
			tmpl["firmware"] = map[string]any{"legacyBIOS": true}
		}
	case VZ:
		tmpl["mountType"] = "virtiofs"
		tmpl["mounts"] = mounts(in.Mounts)
		if target.Rosetta {
			if img.Arch != "aarch64" {
				return fmt.Errorf("rosetta runs x86_64 binaries in an aarch64 guest; the guest image is %s", img.Arch)
			}
			// Lima v1.2.2's field (later Limas moved it to vmOpts.vz).
			tmpl["rosetta"] = map[string]any{"enabled": true, "binfmt": true}
		}
	case WSL2:
		if !strings.Contains(img.Location, ".tar") {
			return fmt.Errorf("vmType %s boots a root file system tarball (.tar, .tar.gz, ...), not %s", WSL2, img.Location)
		}
		tmpl["mountType"] = "wsl2"
		tmpl["mounts"] = []any{}
	default:
		return fmt.Errorf("unknown VM type %q: use %s, %s or %s", target.VMType, QEMU, VZ, WSL2)
	}
	return nil
}

// mounts is the template's list of the folders ms: Lima mounts each at
// its own path (its location with ~ expanded) in the guest.
func mounts(ms []resource.AppMount) []any {
	out := []any{}
	for _, m := range ms {
		out = append(out, map[string]any{"location": m.Location, "writable": !m.ReadOnly})
	}
	return out
}

// Template renders the App's template of one instance on one target: the
// App controller's core/app.Template.
type Template struct {
	Instance string
	ShortDir string
	Target   Target
	// UID is the host user's id (Input.UID).
	UID int
	// Image returns the guest image at each render.
	Image func() (Image, error)
}

var _ app.Template = Template{}

// Render returns the complete template of the App's VM as spec asks: its
// engine and its shared folders (the home folder when spec names no list).
func (t Template) Render(spec resource.AppSpec) ([]byte, error) {
	img, err := t.Image()
	if err != nil {
		return nil, err
	}
	ms := spec.Mounts
	if ms == nil {
		ms = resource.DefaultAppMounts()
	}
	return Render(Input{Instance: t.Instance, ShortDir: t.ShortDir, Engine: spec.ContainerEngine.Name, Image: img,
		Mounts: ms, MountType: spec.MountType, UID: t.UID}, t.Target)
}
