package hostcheck

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Options say where the instance keeps what grows (Dirs, whose free disk
// is checked), what the caller found of Paddock's own programs (Parts),
// and which of them runs VZ guests on macOS (VZProgram), whose signature
// must carry the virtualization entitlement.
type Options struct {
	Dirs      []string
	Parts     []Part
	VZProgram string
}

// commandTimeout bounds each command a gatherer runs.
const commandTimeout = 10 * time.Second

// lookProgram finds name on PATH and runs it with args to learn its
// version.
func lookProgram(ctx context.Context, name string, args ...string) Program {
	path, err := exec.LookPath(name)
	if err != nil {
		return Program{}
	}
	out, err := runOutput(ctx, path, args...)
	p := Program{Path: path, Output: out}
	if err != nil {
		p.Err = err.Error()
	}
	return p
}

// runOutput runs a program and returns its stdout and stderr together.
func runOutput(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = noWindow()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// disks measures the free space under each directory, or under its
// nearest parent that exists when it does not exist yet.
func disks(dirs []string) []Disk {
	var out []Disk
	for _, dir := range dirs {
		d := Disk{Dir: dir}
		free, err := FreeSpace(dir)
		if err != nil {
			d.Err = err.Error()
		}
		d.Free = free
		out = append(out, d)
	}
	return out
}

// FreeSpace is the space the user can still write under dir, or under its
// nearest parent that exists when it does not exist yet.
func FreeSpace(dir string) (uint64, error) { return freeBytes(existingParent(dir)) }

func existingParent(dir string) string {
	for {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}
