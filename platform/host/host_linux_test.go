package host

import (
	"context"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/linux"
)

// On Linux the seam answers the XDG paths with the sun_path limit, QEMU,
// and the forwarded socket as Docker's endpoint, which needs no serving;
// the App's template is rendered through it for the instance.
func TestCurrentOnLinux(t *testing.T) {
	h := Current()
	roots, err := h.Roots()
	if err != nil || roots.MaxSocketPath != linux.SocketPathMax {
		t.Fatalf("Roots() = %+v, %v", roots, err)
	}
	ctx := context.Background()
	if got := h.AppTarget(ctx); got != (apptemplate.Target{VMType: apptemplate.QEMU}) {
		t.Errorf("AppTarget = %+v", got)
	}
	p := instance.Paths{Instance: "dev", ShortDir: "/home/u/.paddock-dev"}
	if got := h.DockerEndpoint(p); got != "unix:///home/u/.paddock-dev/docker.sock" {
		t.Errorf("DockerEndpoint = %s", got)
	}
	if err := h.ServeDocker(ctx, p); err != nil {
		t.Errorf("ServeDocker = %v", err)
	}
	image := func() (apptemplate.Image, error) {
		return apptemplate.Image{File: apptemplate.File{Location: "/img/debian.qcow2"}, Arch: "x86_64"}, nil
	}
	out, err := AppTemplate(ctx, h, p, image).Render(resource.AppSpec{ContainerEngine: resource.ContainerEngine{Name: resource.EngineMoby}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		VMType       string                        `json:"vmType"`
		PortForwards []struct{ HostSocket string } `json:"portForwards"`
		Images       []struct{ Location string }
		User         struct{ UID int }
	}
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.VMType != apptemplate.QEMU || len(got.PortForwards) != 1 || !strings.HasPrefix(got.PortForwards[0].HostSocket, p.ShortDir+"/") || got.Images[0].Location != "/img/debian.qcow2" {
		t.Errorf("the App's template through the seam:\n%s", out)
	}
	// The guest user is the host user's uid, or 1000 under root.
	if want := max(os.Getuid(), 0); (want == 0 && got.User.UID != 1000) || (want > 0 && got.User.UID != want) {
		t.Errorf("the guest user's uid %d, with the host's %d", got.User.UID, want)
	}
}
