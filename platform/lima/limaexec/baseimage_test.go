package limaexec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"
)

// imageFiles writes an image, a kernel and an initrd under dir; gzipKernel
// makes the kernel a gzip stream, which Lima decompresses.
func imageFiles(t *testing.T, dir string, gzipKernel bool) (img, kernel, initrd string) {
	t.Helper()
	img, kernel, initrd = filepath.Join(dir, "debian.qcow2"), filepath.Join(dir, "vmlinuz"), filepath.Join(dir, "initrd.img")
	kernelData := []byte("MZ kernel")
	if gzipKernel {
		kernelData = []byte{0x1f, 0x8b, 8, 0, 0, 0}
	}
	for path, data := range map[string][]byte{img: []byte("QFI\xfb disk"), kernel: kernelData, initrd: []byte("070701 cpio")} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return img, kernel, initrd
}

func qemuInstance(t *testing.T, images ...limayaml.Image) *limastore.Instance {
	t.Helper()
	vmType, arch := limayaml.QEMU, limayaml.X8664
	return &limastore.Instance{Dir: t.TempDir(), Config: &limayaml.LimaYAML{VMType: &vmType, Arch: &arch, Images: images}}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

func TestALocalImageIsLinkedNotCopied(t *testing.T) {
	img, kernel, initrd := imageFiles(t, t.TempDir(), false)
	inst := qemuInstance(t,
		limayaml.Image{File: limayaml.File{Location: "https://example.invalid/arm.qcow2", Arch: limayaml.AARCH64}},
		limayaml.Image{File: limayaml.File{Location: img, Arch: limayaml.X8664},
			Kernel: &limayaml.Kernel{File: limayaml.File{Location: "file://" + kernel, Arch: limayaml.X8664}, Cmdline: "root=LABEL=lima-root"},
			Initrd: &limayaml.File{Location: initrd, Arch: limayaml.X8664}})
	if err := linkLocalImage(inst); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{img: filenames.BaseDisk, kernel: filenames.Kernel, initrd: filenames.Initrd} {
		if !sameFile(t, from, filepath.Join(inst.Dir, to)) {
			t.Errorf("%s is not a link to %s", to, from)
		}
	}
	if got, err := os.ReadFile(filepath.Join(inst.Dir, filenames.KernelCmdline)); err != nil || string(got) != "root=LABEL=lima-root" {
		t.Errorf("kernel.cmdline = %q, %v", got, err)
	}
}

// Whatever Lima would check, decompress or download, it does itself:
// nothing is linked.
func TestAnImageLimaWouldCheckOrDecompressIsLeftToLima(t *testing.T) {
	dir := t.TempDir()
	img, kernel, _ := imageFiles(t, dir, false)
	_, gzKernel, _ := imageFiles(t, t.TempDir(), true)
	x86 := func(loc string) limayaml.File { return limayaml.File{Location: loc, Arch: limayaml.X8664} }
	withDigest := x86(img)
	withDigest.Digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	for name, image := range map[string]limayaml.Image{
		"a digest":           {File: withDigest},
		"a compressed image": {File: x86(img + ".xz")},
		"a gzip kernel":      {File: x86(img), Kernel: &limayaml.Kernel{File: x86(gzKernel)}},
		"a download":         {File: x86("https://example.invalid/debian.qcow2")},
		"a missing kernel":   {File: x86(img), Kernel: &limayaml.Kernel{File: x86(kernel + ".missing")}},
		"another arch only":  {File: limayaml.File{Location: img, Arch: limayaml.AARCH64}},
	} {
		t.Run(name, func(t *testing.T) {
			inst := qemuInstance(t, image)
			if err := linkLocalImage(inst); err != nil {
				t.Fatal(err)
			}
			if entries, _ := os.ReadDir(inst.Dir); len(entries) != 0 {
				t.Errorf("the instance holds %v; want nothing", entries)
			}
		})
	}
}

func TestAnInstanceWithABaseDiskIsLeftAlone(t *testing.T) {
	img, _, _ := imageFiles(t, t.TempDir(), false)
	inst := qemuInstance(t, limayaml.Image{File: limayaml.File{Location: img, Arch: limayaml.X8664}})
	baseDisk := filepath.Join(inst.Dir, filenames.BaseDisk)
	if err := os.WriteFile(baseDisk, []byte("made before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := linkLocalImage(inst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(baseDisk); string(got) != "made before" {
		t.Errorf("the base disk was replaced: %q", got)
	}
}
