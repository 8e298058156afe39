package lima

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/atomicfile"
	"paddock.dev/paddock/platform/qemu"
)

// pidFileTimeout bounds how long Start waits for a new host agent to write
// its pid file.
const pidFileTimeout = 10 * time.Second

// Start starts the instance's host agent, `paddock-lima hostagent NAME`,
// which boots the VM or resumes the state its last stop saved (Save;
// takeSavedState says which and why), and returns once the host agent runs and has written its
// pid file; WaitRunning or Watch follow the boot. The host agent runs in a
// process group of its own, so it outlives the daemon (and a Ctrl-C in the
// daemon's terminal). Start is idempotent: an instance whose host agent is
// alive is left alone. Leftovers of a host agent that died (a VM process
// still running, stale pid and socket files) are cleared first.
func (d *Driver) Start(ctx context.Context, name string) error {
	if d.Executable == "" {
		return errors.New("the driver does not know the paddock executable, the host agents' QEMU wrapper and ssh shim")
	}
	helper, err := d.helper()
	if err != nil {
		return err
	}
	state, err := d.existing(name)
	if err != nil {
		return err
	}
	if state.HostAgentAlive {
		d.Logger.Info("host agent already running", "instance", name, "pid", state.HostAgentPID)
		return nil
	}
	if err := d.clearLeftovers(state); err != nil {
		return err
	}
	inst, err := inspectConfig(name)
	if err != nil {
		return err
	}
	guestAgent, err := d.findGuestAgent(inst)
	if err != nil {
		return fmt.Errorf("instance %s: %w", name, err)
	}
	if err := EnsureUserKey(d.LimaHome); err != nil {
		return err
	}
	accel, err := d.resolveAccel(ctx, *inst.Config.Arch)
	if err != nil {
		return fmt.Errorf("instance %s: %w", name, err)
	}
	env, err := d.hostAgentEnv(accel, *inst.Config.Arch)
	if err != nil {
		return fmt.Errorf("instance %s: %w", name, err)
	}
	boot, err := d.takeStart(ctx, inst, accel)
	if err != nil {
		return fmt.Errorf("instance %s: %w", name, err)
	}
	if boot.Resumed {
		env = append(env, qemu.EnvIncoming+"="+filepath.Join(inst.Dir, resumeStateFile))
	}
	env = append(env, sshShimWaitEnv(inst, boot.Resumed)...)
	// exec.Cmd keeps the last of several values of a variable.
	env = append(os.Environ(), env...)
	if err := atomicfile.WriteFile(filepath.Join(inst.Dir, accelFile), []byte(accel+"\n"), 0o644); err != nil {
		return err
	}
	// Lima's Prepare (the disks, the image's download) runs in
	// paddock-lima.
	if err := d.runHelper(ctx, nil, "prepare", name); err != nil {
		return fmt.Errorf("instance %s: prepare: %w", name, err)
	}
	if err := importDistro(ctx, inst); err != nil {
		return fmt.Errorf("instance %s: %w", name, err)
	}
	d.Logger.Info("starting host agent", "instance", name, "accel", accel, "resume", boot.Resumed, "coldBoot", boot.Reason)
	return d.launch(helper, name, inst.Dir, guestAgent, env)
}

// HostAgentEnv returns what Start adds to this process's environment for
// the host agent of the instance name: the settings through which Lima's
// library, in the host agent, finds its home, QEMU and ssh. Whoever starts
// a host agent another way (Lima's own instance.Start) sets them first.
func (d *Driver) HostAgentEnv(ctx context.Context, name string) ([]string, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	inst, err := inspectConfig(name)
	if err != nil {
		return nil, err
	}
	accel, err := d.resolveAccel(ctx, *inst.Config.Arch)
	if err != nil {
		return nil, err
	}
	return d.hostAgentEnv(accel, *inst.Config.Arch)
}

// hostAgentEnv is what a host agent that runs a guest of arch with accel
// needs in its environment beyond this process's. Lima reads these from
// the environment (LIMA_HOME, QEMU_SYSTEM_<ARCH>, PATH), so they are the
// host agent's own and change nothing in this process.
func (d *Driver) hostAgentEnv(accel string, arch limayaml.Arch) ([]string, error) {
	qemuEnv, err := d.qemuEnv(accel, arch)
	if err != nil {
		return nil, err
	}
	sshEnv, err := d.sshShimEnv()
	if err != nil {
		return nil, err
	}
	return slices.Concat([]string{EnvLimaHome + "=" + d.LimaHome}, qemuEnv, sshEnv), nil
}

// launch runs the host agent, helper's hostagent command, with env and its
// output in the instance's log files, and waits for its pid file.
func (d *Driver) launch(helper, name, dir, guestAgent string, env []string) error {
	pidFile := filepath.Join(dir, filenames.HostAgentPID)
	stdout, err := os.Create(filepath.Join(dir, filenames.HostAgentStdoutLog))
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, filenames.HostAgentStderrLog))
	if err != nil {
		return err
	}
	defer stderr.Close()

	args := []string{"hostagent", "--pidfile", pidFile, "--socket", filepath.Join(dir, filenames.HostAgentSock)}
	if guestAgent != "" {
		args = append(args, "--guestagent", guestAgent)
	}
	args = append(args, name)
	cmd := exec.Command(helper, args...)
	cmd.Env = env
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	// Setpgid on Unix; on Windows CREATE_NEW_PROCESS_GROUP and
	// CREATE_NO_WINDOW, so that no console window opens for it.
	cmd.SysProcAttr = hostAgentAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("instance %s: start host agent: %w", name, err)
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		// Reap the host agent when it exits, so that it does not linger
		// as a zombie that looks alive. Its pid is free from then on, for
		// any later process, another host agent included.
		cmd.Wait()
		close(exited)
	}()
	d.Logger.Info("host agent started", "instance", name, "pid", pid)

	deadline := time.NewTimer(pidFileTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-exited:
			return d.startError(name, "the host agent exited at once", nil)
		case <-deadline.C:
			return d.startError(name, fmt.Sprintf("the host agent wrote no pid file within %v", pidFileTimeout), nil)
		case <-poll.C:
			if p, err := readPID(pidFile); err != nil {
				return err
			} else if p == pid {
				return nil
			}
		}
	}
}

// clearLeftovers kills what still runs of the instance and removes the
// stale pid and socket files that would make Lima believe it runs. After a
// host agent died, it kills a VM process that outlived it. An instance
// with no such files is left alone.
func (d *Driver) clearLeftovers(state Instance) error {
	if stale, err := hasRuntimeFiles(state.Dir); err != nil || !stale {
		return err
	}
	inst, err := limastore.Inspect(state.Name)
	if err != nil {
		return err
	}
	// Only pids that are still this instance's processes may be killed.
	// They are killed here rather than by Lima's StopForcibly, whose
	// "SIGKILL" is a CTRL_BREAK_EVENT on Windows, which a hung process
	// ignores; StopForcibly, in paddock-lima, then removes the files
	// without killing anything.
	for _, p := range []struct {
		alive bool
		pid   int
		what  string
	}{{state.DriverAlive, inst.DriverPID, "VM process"}, {state.HostAgentAlive, inst.HostAgentPID, "host agent"}} {
		if !p.alive || p.pid <= 0 {
			continue
		}
		d.Logger.Info("killing the instance's "+p.what, "instance", state.Name, "pid", p.pid)
		if err := terminate(p.pid); err != nil && !errors.Is(err, os.ErrProcessDone) {
			d.Logger.Warn("cannot kill the instance's "+p.what, "instance", state.Name, "pid", p.pid, "error", err)
		}
	}
	d.Logger.Info("clearing what the instance's processes left", "instance", state.Name)
	if err := d.runHelper(context.Background(), nil, "stop-forcibly", state.Name); err != nil {
		return fmt.Errorf("instance %s: clear what its processes left: %w", state.Name, err)
	}
	return d.waitGone(state.Name, pidGoneTimeout)
}

// hasRuntimeFiles reports whether dir holds any of the pid, socket and
// temporary files that Lima removes when it stops an instance by force.
func hasRuntimeFiles(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		for _, suffix := range filenames.TmpFileSuffixes {
			if strings.HasSuffix(e.Name(), suffix) {
				return true, nil
			}
		}
	}
	return false, nil
}
