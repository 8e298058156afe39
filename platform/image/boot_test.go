package image

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
)

// fragment is what platform/linux/guestimage/build.sh writes beside an image.
const fragment = `vmType: qemu
arch: x86_64
images:
- location: IMAGE/debian.qcow2
  arch: x86_64
  kernel:
    location: IMAGE/vmlinuz
    cmdline: "root=LABEL=lima-root rw quiet apparmor=0"
  initrd:
    location: IMAGE/initrd.img
containerd: {system: false, user: false}
`

func builtImage(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(fragment), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// appTemplate is the Linux App's template of the instance x booting s.
func appTemplate(t *testing.T, s Source) apptemplate.Template {
	return apptemplate.Template{Instance: "x", ShortDir: "/home/u/.paddock-x", Target: apptemplate.Target{VMType: apptemplate.QEMU},
		Image: (&Fetcher{Cache: t.TempDir()}).Boot(s)}
}

func TestABuiltImageStartsTheEngineAndForwardsItsSocketIntoTheInstance(t *testing.T) {
	tmpl := appTemplate(t, Source{Dir: builtImage(t)})
	for engine, want := range map[string][3]string{
		resource.EngineMoby:       {"systemd.wants=docker.service", "/run/docker.sock", "/home/u/.paddock-x/vm-docker.sock"},
		resource.EngineContainerd: {"systemd.wants=containerd.service", "/run/containerd/containerd.sock", "/home/u/.paddock-x/vm-containerd.sock"},
	} {
		out, err := tmpl.Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: engine}})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Images []struct {
				Location string
				Kernel   struct{ Cmdline string }
				Initrd   struct{ Location string }
			}
			User         struct{ Name string }
			Provision    []struct{ Mode, Script string }
			PortForwards []struct{ GuestSocket, HostSocket string } `json:"portForwards"`
		}
		if err := yaml.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got.Images[0].Kernel.Cmdline, "apparmor=0 "+want[0]) || got.Images[0].Location != "IMAGE/debian.qcow2" || got.Images[0].Initrd.Location != "IMAGE/initrd.img" {
			t.Errorf("%s: images = %+v", engine, got.Images)
		}
		if len(got.PortForwards) != 1 || got.PortForwards[0].GuestSocket != want[1] || got.PortForwards[0].HostSocket != want[2] {
			t.Errorf("%s: portForwards = %+v", engine, got.PortForwards)
		}
		if len(got.Provision) != 1 || !strings.Contains(got.Provision[0].Script, `chown "{{.User}}" `+want[1]) || got.User.Name != "paddock" {
			t.Errorf("%s: provision = %+v, user %q", engine, got.Provision, got.User.Name)
		}
	}
}

func TestABuiltImageWithoutADirectKernelIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte("images:\n- location: d.qcow2\n  arch: x86_64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBuilt(dir); err == nil || !strings.Contains(err.Error(), "direct kernel boot") {
		t.Fatalf("LoadBuilt = %v", err)
	}
	if _, err := LoadBuilt(t.TempDir()); err == nil || !strings.Contains(err.Error(), "template.yaml") {
		t.Fatalf("LoadBuilt of an empty directory = %v", err)
	}
}

// A cloud disk boots by its own boot loader; a script installs the engine
// and starts it before the engine's socket is handed to the Lima user.
func TestACloudDiskInstallsAndStartsTheEngine(t *testing.T) {
	disk := filepath.Join(t.TempDir(), "debian.qcow2")
	if err := os.WriteFile(disk, []byte("qcow"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Choose(disk, nil, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := appTemplate(t, src)
	for engine, unit := range map[string]string{resource.EngineMoby: "docker.service", resource.EngineContainerd: "containerd.service"} {
		out, err := tmpl.Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: engine}})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Arch     string
			Images   []struct{ Location, Arch string }
			Firmware struct {
				LegacyBIOS bool `json:"legacyBIOS"`
			}
			Provision []struct{ Mode, Script string }
		}
		if err := yaml.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if got.Arch != "x86_64" || len(got.Images) != 1 || got.Images[0].Location != disk || !got.Firmware.LegacyBIOS {
			t.Errorf("%s: %s", engine, out)
		}
		if len(got.Provision) != 2 || !strings.Contains(got.Provision[0].Script, "apt-get install -qy --no-install-recommends docker.io") ||
			!strings.Contains(got.Provision[0].Script, `unit="`+unit+`"`) || !strings.Contains(got.Provision[1].Script, "chown") {
			t.Errorf("%s: provision = %+v", engine, got.Provision)
		}
	}
}

// While a remote image downloads, the template says so, for the App's
// conditions.
func TestARemoteDiskSaysItIsDownloading(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "8")
		if r.Method == http.MethodGet {
			w.Write([]byte("qcow"))
			w.(http.Flusher).Flush()
			<-release
			w.Write([]byte("2xyz"))
		}
	}))
	defer srv.Close()
	tmpl := appTemplate(t, Source{Disk: srv.URL + "/d.qcow2", Digest: digest.SHA512.FromString("qcow2xyz"), Arch: "x86_64"})
	_, err := tmpl.Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: resource.EngineMoby}})
	var pending *app.PendingError
	if !errors.As(err, &pending) || pending.Reason != resource.ReasonDownloading || !strings.Contains(pending.Message, "downloading the guest image ") {
		t.Fatalf("Render while downloading: %v", err)
	}
	close(release)
	for errors.As(err, &pending) {
		time.Sleep(50 * time.Millisecond)
		_, err = tmpl.Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: resource.EngineMoby}})
	}
	if err != nil {
		t.Fatalf("Render once downloaded: %v", err)
	}
}

// A VM of its own boots a cloud disk as the App does: by BIOS, with no
// engine installed by Lima, downloaded and checked by Lima when the
// daemon has no copy yet.
func TestSourceTemplateBootsACloudDisk(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := Source{Disk: "https://example.org/d.qcow2", Digest: digest.SHA512.FromString("d"), Arch: "x86_64"}
	out, err := SourceTemplate(src)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Arch     string
		Images   []struct{ Location, Arch, Digest string }
		Firmware struct {
			LegacyBIOS bool `json:"legacyBIOS"`
		}
		Containerd struct{ System, User bool }
		User       struct{ Name string }
	}
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Arch != "x86_64" || len(got.Images) != 1 || got.Images[0].Location != src.Disk || got.Images[0].Digest != src.Digest.String() ||
		!got.Firmware.LegacyBIOS || got.Containerd.System || got.Containerd.User || got.User.Name != "paddock" {
		t.Errorf("template:\n%s", out)
	}
	built := builtImage(t)
	if out, err := SourceTemplate(Source{Dir: built}); err != nil || !strings.Contains(string(out), "IMAGE/debian.qcow2") {
		t.Errorf("a built image's template: %v\n%s", err, out)
	}
}
