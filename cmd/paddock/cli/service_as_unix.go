//go:build !windows

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"paddock.dev/paddock/core/buildinfo"
)

// runAsUser runs this binary with args as the account name, with the
// environment a service of that account gets (its HOME, no XDG overrides
// of the caller's), and returns its standard output. Only root can.
func runAsUser(name string, args ...string) ([]byte, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	exe, err := buildinfo.Executable()
	if err != nil {
		return nil, err
	}
	env := []string{"HOME=" + u.HomeDir, "USER=" + name, "LOGNAME=" + name}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "USER" && k != "LOGNAME" && !strings.HasPrefix(k, "XDG_") && !strings.HasPrefix(k, "SUDO_") {
			env = append(env, kv)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Env, cmd.Dir = env, u.HomeDir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
