package lima

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/windows/wslfake"
)

// A wsl2 instance's VM is its WSL distribution, whose driver writes no pid
// file: it runs when WSL lists it among the running ones (a fake wsl.exe
// here), whatever pid file lies around.
func TestWSL2InstanceRunsWithItsDistro(t *testing.T) {
	f := wslfake.New(t)
	dir := filepath.Join(t.TempDir(), "app")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stale pid file of another VM type, with a live pid: not the distro.
	os.WriteFile(filepath.Join(dir, filenames.PIDFile(limayaml.QEMU)), []byte(strconv.Itoa(os.Getpid())), 0o644)
	var d Driver
	f.On(t, "--list --running --quiet", "Ubuntu\nlima-app\n", 0)
	if p, err := d.processes(dir, limayaml.WSL2); err != nil || !p.driverAlive {
		t.Errorf("distribution running: %+v, %v; want the VM alive", p, err)
	}
	f.On(t, "--list --running --quiet", "Es werden keine Distributionen ausgeführt.\n", 255)
	if p, err := d.processes(dir, limayaml.WSL2); err != nil || p.driverAlive {
		t.Errorf("none running: %+v, %v; want the VM not alive", p, err)
	}
}

// Start imports a wsl2 instance's distribution on WSL 2 before Lima's
// driver would import it without a version; other instances are left
// alone.
func TestImportDistroOnWSL2(t *testing.T) {
	f := wslfake.New(t)
	f.On(t, "--list --verbose", "Windows Subsystem for Linux has no installed distributions.\n", 255)
	wsl2, qemu := limayaml.WSL2, limayaml.QEMU
	inst := &limastore.Instance{Name: "app", Dir: "/lima/app", Config: &limayaml.LimaYAML{VMType: &wsl2}}
	if err := importDistro(context.Background(), inst); err != nil {
		t.Fatal(err)
	}
	want := "--import lima-app /lima/app /lima/app/" + filenames.BaseDisk + " --version 2"
	if got := f.Calls(); !slices.Contains(got, want) {
		t.Errorf("wsl.exe ran %q, want %q", got, want)
	}
	inst.Config.VMType = &qemu
	before := len(f.Calls())
	if err := importDistro(context.Background(), inst); err != nil || len(f.Calls()) != before {
		t.Errorf("a qemu instance: %v, wsl.exe ran %q", err, f.Calls()[before:])
	}
}
