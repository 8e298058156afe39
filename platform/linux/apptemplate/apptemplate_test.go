package apptemplate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
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

func image(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(fragment), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRenderStartsTheEngineAndForwardsItsSocketIntoTheInstance(t *testing.T) {
	dir := image(t)
	for engine, want := range map[string][3]string{
		resource.EngineMoby:       {"systemd.wants=docker.service", "/run/docker.sock", "/home/u/.paddock-x/docker.sock"},
		resource.EngineContainerd: {"systemd.wants=containerd.service", "/run/containerd/containerd.sock", "/home/u/.paddock-x/containerd.sock"},
	} {
		out, err := Template{ShortDir: "/home/u/.paddock-x", Image: dir}.Render(engine)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Images []struct {
				Location string
				Kernel   struct{ Cmdline string }
			}
			User         struct{ Name string }
			Provision    []struct{ Mode, Script string }
			PortForwards []struct{ GuestSocket, HostSocket string } `json:"portForwards"`
		}
		if err := yaml.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(got.Images[0].Kernel.Cmdline, "apparmor=0 "+want[0]) || got.Images[0].Location != "IMAGE/debian.qcow2" {
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

func TestFindImageTakesTheOverrideOrTheNewestBuilt(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("PADDOCK_IMAGE_CACHE", cache)
	t.Setenv(EnvImage, "")
	if _, err := FindImage(); err == nil || !strings.Contains(err.Error(), "guestimage/build.sh") {
		t.Fatalf("an empty cache: %v", err)
	}
	for _, name := range []string{"old", "new"} {
		if err := os.MkdirAll(filepath.Join(cache, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cache, name, "template.yaml"), []byte(fragment), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := mustStat(t, filepath.Join(cache, "new", "template.yaml")).ModTime().Add(-3600e9)
	os.Chtimes(filepath.Join(cache, "old", "template.yaml"), past, past)
	if dir, err := FindImage(); err != nil || dir != filepath.Join(cache, "new") {
		t.Fatalf("FindImage = %s, %v", dir, err)
	}
	t.Setenv(EnvImage, filepath.Join(cache, "old"))
	if dir, err := FindImage(); err != nil || dir != filepath.Join(cache, "old") {
		t.Fatalf("with %s: %s, %v", EnvImage, dir, err)
	}
	t.Setenv(EnvImage, "/nonexistent")
	if _, err := FindImage(); err == nil || !strings.Contains(err.Error(), EnvImage) {
		t.Fatalf("a bad override: %v", err)
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// New chooses the image once; with none, each render looks again.
func TestNewChoosesTheImageOnceOrLooksAtEachRender(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("PADDOCK_IMAGE_CACHE", cache)
	t.Setenv(EnvImage, "")
	tmpl := New("/s")
	if _, err := tmpl.Render(resource.EngineMoby); err == nil || !strings.Contains(err.Error(), "build.sh") {
		t.Fatalf("no image: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "a", "template.yaml"), []byte(fragment), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tmpl.Render(resource.EngineMoby); err != nil {
		t.Fatalf("an image built later is not found: %v", err)
	}
	if got := New("/s").Image; got != filepath.Join(cache, "a") {
		t.Fatalf("New chose %q", got)
	}
}
