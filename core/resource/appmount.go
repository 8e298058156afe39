package resource

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mount types an App on QEMU can share host folders by. An empty
// spec.mountType takes the VM type's default: DefaultQEMUMountType on
// QEMU, virtiofs on VZ, WSL's own drive mounts on WSL2.
const (
	MountType9p           = "9p"
	MountTypeReverseSSHFS = "reverse-sshfs"
	// DefaultQEMUMountType is the faster of the two on QEMU, as the
	// platform/lima mount benchmark measured it.
	DefaultQEMUMountType = MountType9p
)

// MountTypes lists the mount types spec.mountType takes.
var MountTypes = []string{MountType9p, MountTypeReverseSSHFS}

// HomeFolder is the location of the folder an App shares by default.
const HomeFolder = "~"

// AppMount is a host folder the App's VM shares, at the same path in the
// guest.
type AppMount struct {
	Location string `json:"location" doc:"A host folder: an absolute path, or one relative to the home folder (~, ~/src). It must exist; the guest sees it at the same path." example:"~/src"`
	ReadOnly bool   `json:"readOnly,omitempty" doc:"Share the folder read-only: the guest and its containers cannot change it."`
}

// String is the mount as 'paddock set mounts=' takes it: LOCATION[:ro].
func (m AppMount) String() string {
	if m.ReadOnly {
		return m.Location + ":ro"
	}
	return m.Location
}

// DefaultAppMounts is what an App shares when its spec names no list: the
// home folder, writable.
func DefaultAppMounts() []AppMount { return []AppMount{{Location: HomeFolder}} }

// guestSystemPaths are the guest's own directories that a mount at the same
// path would hide (the list Lima refuses, and the kernel's and boot's own).
var guestSystemPaths = []string{"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64",
	"/opt", "/proc", "/run", "/sbin", "/sys", "/tmp", "/usr", "/var"}

// expandHome expands a leading ~ to the home folder of the process that
// validates (the daemon, which runs as the user whose VMs these are).
func expandHome(loc string) (string, error) {
	if loc != HomeFolder && !strings.HasPrefix(loc, HomeFolder+"/") {
		return loc, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, strings.TrimPrefix(loc, HomeFolder)), nil
}

// validateAppMounts checks the App's mounts: each absolute or ~-relative,
// an existing folder (checked for mounts that old did not have, so that a
// folder removed later does not block every other change), not one of the
// guest's system directories, and neither listed twice nor inside
// another listed one.
func validateAppMounts(mounts, old []AppMount) []FieldError {
	var errs []FieldError
	type seen struct {
		path, field, loc string
	}
	var ok []seen
	for i, m := range mounts {
		field := fmt.Sprintf("spec.mounts[%d].location", i)
		loc := m.Location
		if strings.HasPrefix(loc, "~") && loc != HomeFolder && !strings.HasPrefix(loc, HomeFolder+"/") {
			errs = append(errs, FieldError{field, fmt.Sprintf("%q names another user's home folder: write ~/... for yours, or an absolute path", loc)})
			continue
		}
		path, err := expandHome(loc)
		if err != nil {
			errs = append(errs, FieldError{field, fmt.Sprintf("cannot find the home folder for %q: %v", loc, err)})
			continue
		}
		if !filepath.IsAbs(path) {
			errs = append(errs, FieldError{field, fmt.Sprintf("%q is neither absolute nor relative to the home folder (~/...)", loc)})
			continue
		}
		path = filepath.Clean(path)
		if slices.Contains(guestSystemPaths, filepath.ToSlash(path)) {
			errs = append(errs, FieldError{field, fmt.Sprintf("%q would hide the guest's own %s: share a folder inside it", loc, filepath.ToSlash(path))})
			continue
		}
		if !slices.ContainsFunc(old, func(o AppMount) bool { return o.Location == m.Location }) {
			if st, err := os.Stat(path); err != nil {
				errs = append(errs, FieldError{field, fmt.Sprintf("%q cannot be shared: %v", loc, statReason(err))})
				continue
			} else if !st.IsDir() {
				errs = append(errs, FieldError{field, fmt.Sprintf("%q is not a folder", loc)})
				continue
			}
		}
		for _, s := range ok {
			switch {
			case s.path == path:
				errs = append(errs, FieldError{field, fmt.Sprintf("%q is %s again: list each folder once", loc, s.field+" "+quote(s.loc))})
			case within(path, s.path):
				errs = append(errs, FieldError{field, fmt.Sprintf("%q is inside %s, which is shared already: list one of them", loc, s.field+" "+quote(s.loc))})
			case within(s.path, path):
				errs = append(errs, FieldError{field, fmt.Sprintf("%q holds %s, which is shared already: list one of them", loc, s.field+" "+quote(s.loc))})
			default:
				continue
			}
			break
		}
		ok = append(ok, seen{path, fmt.Sprintf("spec.mounts[%d]", i), loc})
	}
	return errs
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// within reports whether path lies inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func statReason(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such folder"
	case os.IsPermission(err):
		return "permission denied"
	}
	return err.Error()
}

// validateMountType checks spec.mountType.
func validateMountType(t string) []FieldError {
	if t == "" || slices.Contains(MountTypes, t) {
		return nil
	}
	return []FieldError{{"spec.mountType", fmt.Sprintf("%q is not a mount type: use %s, or leave it empty for the VM type's default", t, strings.Join(MountTypes, " or "))}}
}
