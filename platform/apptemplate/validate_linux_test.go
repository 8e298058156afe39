package apptemplate_test

import (
	"bytes"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/lima"
)

// TestEveryPlatformsTemplatePassesLimasValidator runs each rendered
// template through the validator the daemon runs (platform/lima's: Lima's
// loader and limayaml.Validate, and no field Lima does not know).
//
// What Lima checks only on the template's own OS cannot run here: the VZ
// driver's Validate (macOS 13, no 9p, no firmware images) and the WSL2
// driver's (mountType wsl2, a tarball image) are darwin and windows
// files; the test checks their rules on the rendered template itself.
// limayaml.Validate asks vmType vz for the host's native arch, so a vz
// template for the other arch (aarch64 on an amd64 runner) is checked by
// Lima on that arch only. Lima's defaults turn Rosetta off on any host
// but macOS on arm64, so here only the field's name and place are checked.
// A Windows path is no absolute path here, so the WSL2 template's sockets
// are validated under a Unix home with a space in it.
func TestEveryPlatformsTemplatePassesLimasValidator(t *testing.T) {
	// The driver checks the cloud-init configuration in paddock-lima.
	bin := t.TempDir()
	if err := paddocktest.Build(bin, paddocktest.Helper); err != nil {
		t.Fatal(err)
	}
	d := &lima.Driver{LimaHome: t.TempDir(), Executable: "/nonexistent/paddock", Helper: filepath.Join(bin, lima.HelperName),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	native := limayaml.NewArch(runtime.GOARCH)
	for _, h := range hosts {
		for _, engine := range resource.Engines {
			t.Run(h.name+"/"+engine, func(t *testing.T) {
				if h.target.VMType == apptemplate.VZ && h.image.Arch != native {
					t.Skipf("limayaml.Validate takes vmType vz only for this host's arch %s; this template is %s", native, h.image.Arch)
				}
				if h.target.VMType == apptemplate.WSL2 {
					// Lima resolves a hostSocket that is not absolute
					// (by this OS's rules) under the instance's
					// directory, and C:\ is not absolute here: the
					// profile with a space is spelled as this OS would.
					h.short = [2]string{"/home/Jane Doe/.paddock", "/home/Jane Doe/.paddock-dev"}
				}
				for i := range instances {
					out, r := render(t, h, i, engine)
					// The validator also refuses a disk larger than the
					// space left on this host (platform/lima), and a test
					// machine may have less than the default 64GiB free:
					// the size is the App's, set through the VM's params,
					// not the platform's.
					sized := bytes.Replace(out, []byte("\ndisk: 64GiB\n"), []byte("\ndisk: 1GiB\n"), 1)
					if bytes.Equal(sized, out) {
						t.Fatalf("the template names no disk: 64GiB line:\n%s", out)
					}
					problems, err := d.Validate(resource.AppVMName, sized)
					if err != nil || len(problems) > 0 {
						t.Fatalf("instance %s: %v %v\n%s", instances[i], problems, err, out)
					}
					switch h.target.VMType {
					case apptemplate.WSL2:
						if r.MountType != limayaml.WSLMount || !regexp.MustCompile(`.*tar\.*`).MatchString(r.Images[0].Location) {
							t.Errorf("the WSL2 driver refuses mountType %q or image %q", r.MountType, r.Images[0].Location)
						}
					case apptemplate.VZ:
						if r.MountType == limayaml.NINEP {
							t.Errorf("the VZ driver refuses mountType %q", r.MountType)
						}
					}
				}
			})
		}
	}
}
