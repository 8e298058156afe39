package lima

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lima-vm/lima/pkg/sshutil"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
)

// SSH returns how to reach the running instance name over ssh: the address
// and port its host agent forwards, the guest user, Lima's user key and
// Lima's ssh options (without the key, which is IdentityFile, and without
// the control socket in the instance directory, which only the daemon's
// user could use).
func (d *Driver) SSH(name string) (resource.VMSSH, error) {
	inst, err := d.existing(name)
	if err != nil {
		return resource.VMSSH{}, err
	}
	if !inst.Running {
		return resource.VMSSH{}, fmt.Errorf("instance %s is not running", name)
	}
	cfg, err := inspectConfig(name)
	if err != nil {
		return resource.VMSSH{}, err
	}
	if cfg.SSHLocalPort == 0 {
		return resource.VMSSH{}, fmt.Errorf("instance %s has no ssh port yet: its host agent does not answer", name)
	}
	sshExe, _, err := sshutil.SSHArguments()
	if err != nil {
		return resource.VMSSH{}, err
	}
	common, err := sshutil.CommonOpts(sshExe, false)
	if err != nil {
		return resource.VMSSH{}, err
	}
	out := resource.VMSSH{
		Host:         cfg.SSHAddress,
		Port:         cfg.SSHLocalPort,
		User:         *cfg.Config.User.Name,
		IdentityFile: filepath.Join(d.LimaHome, filenames.ConfigDir, filenames.UserPrivateKey),
	}
	for _, o := range common {
		if !strings.HasPrefix(o, "IdentityFile=") {
			out.Options = append(out.Options, o)
		}
	}
	return out, nil
}

// LogPath returns the file of one of the instance's logs. It may not exist
// yet: a log appears when the instance first starts.
func (d *Driver) LogPath(name string, stream resource.VMLogStream) (string, error) {
	inst, err := d.existing(name)
	if err != nil {
		return "", err
	}
	file := map[resource.VMLogStream]string{
		resource.VMLogHostAgent: filenames.HostAgentStderrLog,
		resource.VMLogEvents:    filenames.HostAgentStdoutLog,
		resource.VMLogSerial:    filenames.SerialLog,
	}[stream]
	if file == "" {
		return "", fmt.Errorf("instance %s has no log %q", name, stream)
	}
	return filepath.Join(inst.Dir, file), nil
}
