package limaexec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/localpathutil"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima"
)

// linkLocalImage gives a new QEMU instance its base disk, kernel and initrd
// as hard links to the image's own files, where Lima's Prepare would copy
// them: files on this host, with no digest to check and nothing to
// decompress. A copy of the test image is 749 MB, 1-3 s of a first start
// and as much disk for every VM. QEMU opens the base disk only read-only,
// as the backing file of the VM's own disk (diffdisk), so the image's
// file is never written through the link. When a file cannot be linked (it
// is on another file system), nothing is linked and Prepare copies as
// before. The base disk is linked last: Prepare takes the instance as made
// once it is there.
func linkLocalImage(inst *limastore.Instance) error {
	cfg := inst.Config
	if cfg.VMType == nil || *cfg.VMType != limayaml.QEMU || cfg.Arch == nil {
		return nil
	}
	baseDisk := filepath.Join(inst.Dir, filenames.BaseDisk)
	if _, err := os.Lstat(baseDisk); !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var img *limayaml.Image
	for i := range cfg.Images {
		if cfg.Images[i].Arch == *cfg.Arch {
			img = &cfg.Images[i]
			break
		}
	}
	if img == nil {
		return nil
	}
	type link struct {
		file     limayaml.File
		from, to string
	}
	var links []link
	if img.Kernel != nil {
		links = append(links, link{file: img.Kernel.File, to: filepath.Join(inst.Dir, filenames.Kernel)})
	}
	if img.Initrd != nil {
		links = append(links, link{file: *img.Initrd, to: filepath.Join(inst.Dir, filenames.Initrd)})
	}
	links = append(links, link{file: img.File, to: baseDisk})
	for i := range links {
		from, ok := plainLocalFile(links[i].file)
		if !ok {
			return nil
		}
		links[i].from = from
	}
	var made []string
	undo := func() {
		for _, p := range made {
			os.Remove(p)
		}
	}
	for _, l := range links {
		if err := os.Link(l.from, l.to); err != nil {
			// Another file system, or a file left by an earlier
			// Prepare: Prepare copies what is missing.
			undo()
			return nil
		}
		made = append(made, l.to)
	}
	if err := lima.WriteKernelCmdline(inst.Dir, cfg); err != nil {
		undo()
		return err
	}
	return nil
}

// plainLocalFile returns the path of f when Lima would only copy it: a
// regular file on this host (a path, or a file:// URL), with no digest,
// and neither named nor made as a compressed file.
func plainLocalFile(f limayaml.File) (string, bool) {
	if f.Digest != "" || strings.Contains(f.Location, "://") && !strings.HasPrefix(f.Location, "file://") {
		return "", false
	}
	path := strings.TrimPrefix(f.Location, "file://")
	path, err := localpathutil.Expand(path)
	if err != nil || !filepath.IsAbs(path) {
		return "", false
	}
	switch filepath.Ext(path) {
	case ".gz", ".bz2", ".xz", ".zst":
		return "", false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return path, !compressed(path)
}

// compressed reports whether the file at path starts as a gzip, bzip2, xz
// or zstd stream does, which Lima decompresses.
func compressed(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 6)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	for _, magic := range [][]byte{{0x1f, 0x8b}, {0x42, 0x5a}, {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00}, {0x28, 0xb5, 0x2f, 0xfd}} {
		if bytes.HasPrefix(head, magic) {
			return true
		}
	}
	return false
}
