package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// vmSettings completes a built image's template fragment into a template
// for a VM of its own: a size that boots under emulation, no host
// directories shared, and the user the image's lima-init creates, named
// explicitly (Lima would name it after the host's user, which may be root,
// which Lima refuses).
const vmSettings = `cpus: 2
memory: 1GiB
disk: 4GiB
mounts: []
ssh: {loadDotSSHPubKeys: false}
user: {name: paddock, uid: 1000}
`

// VMTemplate returns a complete Lima template for a VM that boots the
// image that platform/linux/guestimage/build.sh built in dir; empty dir
// takes the newest in the image cache.
func VMTemplate(dir string) ([]byte, error) {
	if dir == "" {
		built, err := Built()
		if err != nil {
			return nil, err
		}
		if len(built) == 0 {
			cache, _ := BuiltCache()
			return nil, fmt.Errorf("no guest image in %s: build one with platform/linux/guestimage/build.sh (it prints its directory)", cache)
		}
		dir = built[0]
	}
	fragment, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is no guest image directory (one that platform/linux/guestimage/build.sh printed): it has no template.yaml", dir)
	}
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("# A VM booting the guest image in %s\n# (platform/linux/guestimage/build.sh). Change cpus, memory, disk and the rest\n# here, or with paddock vm create --param.\n", dir)
	if len(fragment) > 0 && fragment[len(fragment)-1] != '\n' {
		fragment = append(fragment, '\n')
	}
	return append(append([]byte(header), fragment...), vmSettings...), nil
}
