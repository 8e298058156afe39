package apptemplate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
)

// host is one platform's App: the VM type it runs, the image it boots, and
// the short directories of two of its instances (the default one and
// "dev"), as instance.Resolve makes them there.
type host struct {
	name   string
	target apptemplate.Target
	image  apptemplate.Image
	short  [2]string
}

var linuxImage = apptemplate.Image{
	File: apptemplate.File{Location: "/cache/img/debian.qcow2"}, Arch: "x86_64",
	Kernel: &apptemplate.Kernel{File: apptemplate.File{Location: "/cache/img/vmlinuz"}, Cmdline: "root=LABEL=lima-root rw"},
	Initrd: &apptemplate.File{Location: "/cache/img/initrd.img"},
}

func cloudImage(arch string) apptemplate.Image {
	return apptemplate.Image{File: apptemplate.File{
		Location: "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-" + arch + ".qcow2",
		Digest:   "sha512:" + strings.Repeat("0", 128),
	}, Arch: map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[arch]}
}

var hosts = []host{
	{"linux qemu", apptemplate.Target{VMType: apptemplate.QEMU}, linuxImage,
		[2]string{"/home/u/.paddock", "/home/u/.paddock-dev"}},
	{"macos qemu on HVF", apptemplate.Target{VMType: apptemplate.QEMU}, cloudImage("arm64"),
		[2]string{"/Users/u/.paddock", "/Users/u/.paddock-dev"}},
	{"macos vz on Apple silicon with Rosetta", apptemplate.Target{VMType: apptemplate.VZ, Rosetta: true}, cloudImage("arm64"),
		[2]string{"/Users/u/.paddock", "/Users/u/.paddock-dev"}},
	{"macos vz on Intel", apptemplate.Target{VMType: apptemplate.VZ}, cloudImage("amd64"),
		[2]string{"/Users/u/.paddock", "/Users/u/.paddock-dev"}},
	{"windows wsl2, a profile with a space", apptemplate.Target{VMType: apptemplate.WSL2},
		apptemplate.Image{File: apptemplate.File{Location: `C:\Users\Jane Doe\AppData\Local\Paddock\images\debian-rootfs.tar.gz`}, Arch: "x86_64"},
		[2]string{`C:\Users\Jane Doe\.paddock`, `C:\Users\Jane Doe\.paddock-dev`}},
}

var instances = [2]string{"default", "dev"}

// rendered is the part of a rendered template the tests read.
type rendered struct {
	VMType    string `json:"vmType"`
	Arch      string
	MountType string `json:"mountType"`
	Mounts    []struct {
		Location string
		Writable bool
	}
	Images []struct {
		Location string
		Kernel   *struct{ Cmdline string }
	}
	User struct {
		Name string
		UID  int
	}
	Rosetta      struct{ Enabled, Binfmt bool }
	SSH          struct{ LocalPort int } `json:"ssh"`
	Provision    []struct{ Mode, Script string }
	PortForwards []struct{ GuestSocket, HostSocket string } `json:"portForwards"`
}

func render(t *testing.T, h host, i int, engine string) ([]byte, rendered) {
	t.Helper()
	out, err := apptemplate.Render(apptemplate.Input{Instance: instances[i], ShortDir: h.short[i], Engine: engine, Image: h.image,
		Mounts: resource.DefaultAppMounts(), UID: 501}, h.target)
	if err != nil {
		t.Fatalf("%s, instance %s, %s: %v", h.name, instances[i], engine, err)
	}
	var r rendered
	if err := yaml.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return out, r
}

// hostResources lists what an instance's VM takes on the host: its
// forwarded sockets, its named pipe on Windows, a fixed SSH port if it had
// one. The host's home directory, which VZ mounts into every instance, is
// the user's files, not the instance's, and is left out.
func hostResources(h host, i int, r rendered) []string {
	var out []string
	for _, pf := range r.PortForwards {
		out = append(out, "socket "+pf.HostSocket)
	}
	if h.target.VMType == apptemplate.WSL2 {
		out = append(out, "pipe "+apptemplate.Pipe(instances[i]))
	}
	if r.SSH.LocalPort != 0 {
		out = append(out, fmt.Sprint("port ", r.SSH.LocalPort))
	}
	return out
}

func TestTwoInstancesShareNoSocketPipePortOrPath(t *testing.T) {
	for _, h := range hosts {
		for _, engine := range resource.Engines {
			t.Run(h.name+"/"+engine, func(t *testing.T) {
				taken := map[string]string{}
				for i := range instances {
					_, r := render(t, h, i, engine)
					if r.SSH.LocalPort != 0 {
						t.Errorf("instance %s has the fixed SSH port %d; Lima must choose a free one", instances[i], r.SSH.LocalPort)
					}
					for _, res := range hostResources(h, i, r) {
						if other, ok := taken[res]; ok {
							t.Errorf("instances %s and %s share %s", other, instances[i], res)
						}
						taken[res] = instances[i]
					}
					for _, pf := range r.PortForwards {
						if !strings.HasPrefix(pf.HostSocket, h.short[i]+string(filepath.Separator)) {
							t.Errorf("instance %s forwards %s to %s, outside its short directory %s", instances[i], pf.GuestSocket, pf.HostSocket, h.short[i])
						}
					}
				}
			})
		}
	}
}

func TestEachVMTypeGetsWhatItNeeds(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			_, r := render(t, h, 0, resource.EngineMoby)
			if r.VMType != h.target.VMType || r.Arch != h.image.Arch || len(r.Images) != 1 || r.Images[0].Location != h.image.Location {
				t.Fatalf("vmType %q, arch %q, images %+v", r.VMType, r.Arch, r.Images)
			}
			// The VM forwards Docker's socket beside the one the
			// daemon serves in front of it, never onto it.
			if len(r.PortForwards) != 1 || r.PortForwards[0].GuestSocket != "/run/docker.sock" ||
				filepath.Base(r.PortForwards[0].HostSocket) != "vm-docker.sock" {
				t.Errorf("portForwards = %+v, want the docker socket forwarded to vm-docker.sock", r.PortForwards)
			}
			last := r.Provision[len(r.Provision)-1].Script
			if !strings.Contains(last, `chown "{{.User}}" /run/docker.sock`) {
				t.Errorf("the last script does not hand the socket to the Lima user: %q", last)
			}
			if h.image.Kernel != nil {
				// A built image has its engines and starts one from
				// the kernel command line.
				if !strings.HasSuffix(r.Images[0].Kernel.Cmdline, " systemd.wants=docker.service") || len(r.Provision) != 1 {
					t.Errorf("a kernel booted directly starts the engine from its command line: cmdline %q, provision %+v", r.Images[0].Kernel.Cmdline, r.Provision)
				}
			} else if install := r.Provision[0].Script; len(r.Provision) != 2 || !strings.Contains(install, "apt-get install -qy --no-install-recommends docker.io") ||
				!strings.Contains(install, `unit="docker.service"`) {
				t.Errorf("an image booted by its boot loader gets the engine installed and started first: %+v", r.Provision)
			}
			switch h.target.VMType {
			case apptemplate.QEMU:
				if r.MountType != resource.DefaultQEMUMountType || len(r.Mounts) != 1 || r.Mounts[0].Location != "~" || !r.Mounts[0].Writable {
					t.Errorf("qemu: mountType %q, mounts %+v; want the home directory by %s, writable", r.MountType, r.Mounts, resource.DefaultQEMUMountType)
				}
			case apptemplate.VZ:
				if r.MountType != "virtiofs" || len(r.Mounts) != 1 || r.Mounts[0].Location != "~" || !r.Mounts[0].Writable {
					t.Errorf("vz: mountType %q, mounts %+v; want the home directory by virtiofs, writable", r.MountType, r.Mounts)
				}
				if r.Rosetta.Enabled != h.target.Rosetta || r.Rosetta.Binfmt != h.target.Rosetta {
					t.Errorf("rosetta = %+v, want enabled and binfmt %v", r.Rosetta, h.target.Rosetta)
				}
			case apptemplate.WSL2:
				if r.MountType != "wsl2" || len(r.Mounts) != 0 {
					t.Errorf("wsl2: mountType %q, mounts %+v; want WSL's own and no list", r.MountType, r.Mounts)
				}
				// A profile with a space comes back whole: YAML quotes
				// it, and Lima hands paths to wsl.exe as arguments,
				// never through a shell.
				if want := h.short[0] + string(filepath.Separator) + "vm-docker.sock"; r.PortForwards[0].HostSocket != want {
					t.Errorf("hostSocket %q, want %q", r.PortForwards[0].HostSocket, want)
				}
			}
		})
	}
}

// The App's list of folders and its mount type reach the template; the
// guest user takes the host user's id, except root's.
func TestTheAppsFoldersAreMountedAsItAsks(t *testing.T) {
	in := apptemplate.Input{Instance: "default", ShortDir: "/s", Engine: resource.EngineMoby, Image: linuxImage,
		Mounts: []resource.AppMount{{Location: "~/src"}, {Location: "/data", ReadOnly: true}}, MountType: resource.MountTypeReverseSSHFS, UID: 1001}
	var r rendered
	for _, tc := range []struct {
		name   string
		target apptemplate.Target
		image  apptemplate.Image
		mtype  string
	}{
		{"qemu", apptemplate.Target{VMType: apptemplate.QEMU}, linuxImage, resource.MountTypeReverseSSHFS},
		{"vz", apptemplate.Target{VMType: apptemplate.VZ}, cloudImage("arm64"), "virtiofs"},
	} {
		in.Image = tc.image
		out, err := apptemplate.Render(in, tc.target)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if r.MountType != tc.mtype || len(r.Mounts) != 2 || r.Mounts[0].Location != "~/src" || !r.Mounts[0].Writable ||
			r.Mounts[1].Location != "/data" || r.Mounts[1].Writable {
			t.Errorf("%s: mountType %q, mounts %+v; want ~/src writable and /data read-only by %s", tc.name, r.MountType, r.Mounts, tc.mtype)
		}
		if r.User.Name != "paddock" || r.User.UID != 1001 {
			t.Errorf("%s: user %+v, want paddock with the host user's uid 1001", tc.name, r.User)
		}
	}
	in.Image, in.Mounts, in.MountType, in.UID = linuxImage, nil, "", 0
	out, err := apptemplate.Render(in, apptemplate.Target{VMType: apptemplate.QEMU})
	if err != nil {
		t.Fatal(err)
	}
	r = rendered{}
	if err := yaml.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Mounts) != 0 || r.User.UID != 1000 {
		t.Errorf("no folders and a root host: mounts %+v, user %+v; want none, and uid 1000", r.Mounts, r.User)
	}
	in.MountType = "nfs"
	if _, err := apptemplate.Render(in, apptemplate.Target{VMType: apptemplate.QEMU}); err == nil || !strings.Contains(err.Error(), "unknown mount type") {
		t.Errorf("mountType nfs: %v", err)
	}
}

// Template shares the home folder when the App's spec names no list (an
// App stored before spec.mounts existed), and none for an empty list.
func TestTemplateDefaultsToTheHomeFolder(t *testing.T) {
	tmpl := apptemplate.Template{Instance: "default", ShortDir: "/s", Target: apptemplate.Target{VMType: apptemplate.QEMU},
		Image: func() (apptemplate.Image, error) { return linuxImage, nil }}
	for _, tc := range []struct {
		mounts []resource.AppMount
		want   int
	}{{nil, 1}, {[]resource.AppMount{}, 0}} {
		out, err := tmpl.Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: resource.EngineMoby}, Mounts: tc.mounts})
		if err != nil {
			t.Fatal(err)
		}
		var r rendered
		if err := yaml.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Mounts) != tc.want {
			t.Errorf("spec.mounts %#v: the template mounts %+v", tc.mounts, r.Mounts)
		}
	}
}

func TestRenderRefusesWhatTheVMTypeCannotBoot(t *testing.T) {
	in := func(img apptemplate.Image) apptemplate.Input {
		return apptemplate.Input{Instance: "default", ShortDir: "/s", Engine: resource.EngineMoby, Image: img}
	}
	for _, tc := range []struct {
		name   string
		in     apptemplate.Input
		target apptemplate.Target
		want   string
	}{
		{"a kernel booted directly on vz", in(linuxImage), apptemplate.Target{VMType: apptemplate.VZ}, "boots its kernel directly"},
		{"a disk image on wsl2", in(cloudImage("amd64")), apptemplate.Target{VMType: apptemplate.WSL2}, "tarball"},
		{"rosetta in an x86_64 guest", in(cloudImage("amd64")), apptemplate.Target{VMType: apptemplate.VZ, Rosetta: true}, "aarch64"},
		{"an unknown VM type", in(cloudImage("amd64")), apptemplate.Target{VMType: "hyperkit"}, "unknown VM type"},
		{"an unknown engine", apptemplate.Input{Instance: "default", ShortDir: "/s", Engine: "podman", Image: linuxImage}, apptemplate.Target{VMType: apptemplate.QEMU}, "unknown container engine"},
		{"no image", in(apptemplate.Image{}), apptemplate.Target{VMType: apptemplate.QEMU}, "no location"},
		{"no instance", apptemplate.Input{Engine: resource.EngineMoby, Image: linuxImage}, apptemplate.Target{VMType: apptemplate.QEMU}, "short directory"},
	} {
		if _, err := apptemplate.Render(tc.in, tc.target); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

func TestPipeIsTheInstances(t *testing.T) {
	if got := apptemplate.Pipe("dev"); got != "npipe:////./pipe/paddock-dev" {
		t.Errorf("Pipe(dev) = %s", got)
	}
	if got := apptemplate.PipePath("dev"); got != `\\.\pipe\paddock-dev` {
		t.Errorf("PipePath(dev) = %s", got)
	}
}

// The first boot of a cloud image (install.sh) gives the shutdown the
// stop timeouts of Paddock's own guest image, which the script repeats:
// the two must not drift apart.
func TestInstallScriptStopsAsTheGuestImage(t *testing.T) {
	script, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	rootfs := filepath.Join("..", "linux", "guestimage", "rootfs", "etc", "systemd")
	for file, section := range map[string]string{
		filepath.Join(rootfs, "system", "docker.service.d", "paddock-stop.conf"): "[Service]",
		filepath.Join(rootfs, "system.conf.d", "paddock-stop.conf"):              "[Manager]",
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var setting string
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && line != section {
				setting = line
			}
		}
		if want := `'` + section + `\n` + setting + `\n'`; setting == "" || !strings.Contains(string(script), want) {
			t.Errorf("install.sh does not write %s as %s does: want %s in it", setting, file, want)
		}
	}
}
