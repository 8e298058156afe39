//go:build !windows

package service

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// mkdirAllOwned creates dir and its missing parents, like os.MkdirAll, and
// gives those it created to the account owner (none: the caller's), so
// that root can prepare a directory that a service running as owner
// writes to.
func mkdirAllOwned(dir, owner string) error {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if owner == "" {
		return nil
	}
	u, err := user.Lookup(owner)
	if err != nil {
		return fmt.Errorf("the owner of %s: %w", dir, err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return err
	}
	for _, d := range created {
		if err := os.Chown(d, uid, gid); err != nil {
			return fmt.Errorf("give %s to %s: %w", d, owner, err)
		}
	}
	return nil
}
