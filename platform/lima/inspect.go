package lima

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/vm"
)

// ErrNotFound is returned for an instance that does not exist.
var ErrNotFound = errors.New("instance not found")

// Instance is what Describe finds out about an instance. Liveness comes from
// the processes themselves, never from a status file: a pid counts only if
// that process is alive and is the instance's (its command line names the
// instance directory, where the OS lets us check).
type Instance struct {
	Name   string `json:"name"`
	Dir    string `json:"dir"`
	Exists bool   `json:"exists"`
	// Running: the host agent and the VM process are both alive.
	Running        bool `json:"running"`
	HostAgentPID   int  `json:"hostAgentPID,omitempty"`
	HostAgentAlive bool `json:"hostAgentAlive"`
	DriverPID      int  `json:"driverPID,omitempty"`
	DriverAlive    bool `json:"driverAlive"`
	// VMType is Lima's driver: qemu, vz or wsl2.
	VMType string `json:"vmType,omitempty"`
	// Accel is the accelerator chosen at the last start (kvm, tcg, ...),
	// empty when the instance was never started by Paddock.
	Accel string `json:"accel,omitempty"`
	// Saved: the instance is stopped with its state saved, for its next
	// start to resume (Save).
	Saved bool `json:"saved,omitempty"`
	// Boot is how the last start went: resumed, or booted and why.
	Boot BootRecord `json:"boot"`
	// SSHConfigFile and Hostname let `ssh -F SSHConfigFile Hostname` reach
	// the guest while it runs.
	SSHConfigFile string `json:"sshConfigFile,omitempty"`
	Hostname      string `json:"hostname,omitempty"`
	SSHLocalPort  int    `json:"sshLocalPort,omitempty"`
	// Errors are problems Lima found reading the instance directory.
	Errors []string `json:"errors,omitempty"`
}

// accelFile records, in the instance directory, the accelerator of the last
// start.
const accelFile = "paddock-accel"

// Inspect is the VM controller's view of the instance name (vm.Inspector):
// Describe, cut to what the controller uses.
func (d *Driver) Inspect(name string) (vm.Instance, error) {
	inst, err := d.Describe(name)
	if err != nil {
		return vm.Instance{}, err
	}
	return vm.Instance{
		Exists:         inst.Exists,
		Running:        inst.Running,
		HostAgentAlive: inst.HostAgentAlive,
		HostAgentPID:   inst.HostAgentPID,
		Accel:          inst.Accel,
		Saved:          inst.Saved,
		Resumed:        inst.Boot.Resumed,
		BootReason:     inst.Boot.Reason,
	}, nil
}

// Describe reports all the driver knows about the instance name. An
// instance that does not exist is not an error: Exists is false.
func (d *Driver) Describe(name string) (Instance, error) {
	if err := d.init(); err != nil {
		return Instance{}, err
	}
	inst, err := limastore.Inspect(name)
	if errors.Is(err, fs.ErrNotExist) {
		dir, dirErr := limastore.InstanceDir(name)
		return Instance{Name: name, Dir: dir}, dirErr
	}
	if err != nil {
		return Instance{}, err
	}
	out := Instance{
		Name:          name,
		Dir:           inst.Dir,
		Exists:        true,
		VMType:        string(inst.VMType),
		SSHConfigFile: inst.SSHConfigFile,
		Hostname:      inst.Hostname,
		SSHLocalPort:  inst.SSHLocalPort,
	}
	for _, e := range inst.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	if b, err := os.ReadFile(filepath.Join(inst.Dir, accelFile)); err == nil {
		out.Accel = strings.TrimSpace(string(b))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Instance{}, err
	}
	if out.Boot, err = readBoot(inst.Dir); err != nil {
		return Instance{}, err
	}
	out.Saved = hasSavedState(inst.Dir)
	vmType := limayaml.QEMU
	if inst.Config != nil {
		vmType = *inst.Config.VMType
	}
	p, err := d.processes(inst.Dir, vmType)
	if err != nil {
		return Instance{}, err
	}
	out.HostAgentPID, out.HostAgentAlive = p.hostAgentPID, p.hostAgentAlive
	out.DriverPID, out.DriverAlive = p.driverPID, p.driverAlive
	out.Running = p.hostAgentAlive && p.driverAlive
	return out, nil
}

// existing is Describe for an instance that must exist: ErrNotFound if not.
func (d *Driver) existing(name string) (Instance, error) {
	inst, err := d.Describe(name)
	if err == nil && !inst.Exists {
		err = fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return inst, err
}

// inspectConfig is Lima's store.Inspect for an instance whose lima.yaml must
// be readable.
func inspectConfig(name string) (*limastore.Instance, error) {
	inst, err := limastore.Inspect(name)
	if err != nil {
		return nil, err
	}
	if inst.Config == nil {
		return nil, fmt.Errorf("instance %s is broken: %w", name, errors.Join(inst.Errors...))
	}
	return inst, nil
}

// Running lists the instances whose host agent is alive. Called when a
// daemon starts, before it started any, these are the host agents that
// outlived the previous daemon: adopt them (Watch, Stop) or stop them.
func (d *Driver) Running() ([]string, error) {
	names, err := d.List()
	if err != nil {
		return nil, err
	}
	var live []string
	for _, n := range names {
		inst, err := d.Describe(n)
		if err != nil {
			return nil, err
		}
		if inst.HostAgentAlive {
			live = append(live, n)
		}
	}
	return live, nil
}

// procs are an instance's host agent and VM processes.
type procs struct {
	hostAgentPID   int
	hostAgentAlive bool
	driverPID      int
	driverAlive    bool
}

// processes reads the pid files of the instance in dir and checks the
// processes. It is the cheap part of Inspect, for polling.
func (d *Driver) processes(dir string, vmType limayaml.VMType) (procs, error) {
	var p procs
	var err error
	haFile := filepath.Join(dir, filenames.HostAgentPID)
	if p.hostAgentPID, err = readPID(haFile); err != nil {
		return p, err
	}
	p.hostAgentAlive = alive(p.hostAgentPID, dir, haFile)
	if vmType == limayaml.WSL2 {
		// The wsl2 driver writes no pid file: its VM is the instance's
		// WSL distribution, which WSL says runs or not.
		p.driverAlive, err = distroRunning(dir)
		return p, err
	}
	driverFile := filepath.Join(dir, filenames.PIDFile(vmType))
	if p.driverPID, err = readPID(driverFile); err != nil {
		return p, err
	}
	p.driverAlive = alive(p.driverPID, dir, driverFile)
	return p, nil
}

// readPID returns the pid in path, or 0 if there is no such file.
func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		// A pid file is being written right now.
		return 0, nil
	}
	pid, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("pid file %s: %w", path, err)
	}
	return pid, nil
}

// alive reports whether pid, read from pidFile, is a live process of the
// instance in dir.
func alive(pid int, dir, pidFile string) bool {
	return pid > 0 && processAlive(pid, dir, pidFile)
}
