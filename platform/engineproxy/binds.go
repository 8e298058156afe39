package engineproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"paddock.dev/paddock/core/resource"
)

// maxCreateBody bounds the container create that is read to check its
// bind mounts; a larger one (no real one is) passes unchecked.
const maxCreateBody = 4 << 20

// createPath is Docker's container create, with or without an API version.
var createPath = regexp.MustCompile(`^(/v[0-9][0-9.]*)?/containers/create$`)

func isCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && createPath.MatchString(r.URL.Path)
}

// vmPaths are the VM's own paths: a bind mount of one, or of anything
// inside one, is the VM's, as on any Docker host (the engine's socket for
// testcontainers and CI agents, /proc and /sys for monitoring, /etc's
// time zone, the engine's and the kernel's directories). "/" itself (a
// whole-root bind, such as node exporters take) is the VM's too.
var vmPaths = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run",
	"/sbin", "/sys", "/usr", "/var/lib", "/var/log", "/var/run"}

// isVMPath reports whether p (clean, absolute) is one of the VM's own.
func isVMPath(p string) bool {
	return p == "/" || slices.ContainsFunc(vmPaths, func(v string) bool { return inside(p, v) })
}

// inside reports whether p is dir or lies inside it (both clean, in the
// guest's slash form).
func inside(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// createBody is what a container create says of its bind mounts.
type createBody struct {
	HostConfig *struct {
		Binds  []string `json:"Binds"`
		Mounts []struct {
			Type   string `json:"Type"`
			Source string `json:"Source"`
		} `json:"Mounts"`
	} `json:"HostConfig"`
}

// bindSources are the host paths a create's binds name: the source of
// each HostConfig.Binds entry ("src:dst[:opts]") that is absolute (another
// is a named volume), and of each HostConfig.Mounts entry of Type bind.
func bindSources(body []byte) []string {
	var c createBody
	if json.Unmarshal(body, &c) != nil || c.HostConfig == nil {
		return nil
	}
	var out []string
	for _, b := range c.HostConfig.Binds {
		src, _, _ := strings.Cut(b, ":")
		if strings.HasPrefix(src, "/") {
			out = append(out, src)
		}
	}
	for _, m := range c.HostConfig.Mounts {
		if strings.EqualFold(m.Type, "bind") && strings.HasPrefix(m.Source, "/") {
			out = append(out, m.Source)
		}
	}
	return out
}

// checkCreate reads the create's body, puts it back for the engine, and
// says whether a bind mount must be refused, and why.
func (p *Proxy) checkCreate(r *http.Request) (string, bool) {
	if p.Shared == nil {
		return "", false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCreateBody+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxCreateBody {
		return "", false
	}
	sources := bindSources(body)
	if len(sources) == 0 {
		return "", false
	}
	shared, err := p.Shared(r.Context())
	if err != nil {
		p.logger().Warn("the App's shared folders are unknown: a container create passes unchecked", "err", err)
		return "", false
	}
	return BindRefusal(sources, shared)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// BindRefusal says whether a container create whose bind mounts have the
// host paths sources must be refused when the App's VM shares the folders
// shared, and the message that says why: a source is refused when it is
// not inside a shared folder, not one of the VM's own paths, and exists
// on this host (the container would get an empty folder of the VM in its
// place). A source inside a shared folder that is, or passes through, a
// link is refused when the link leads out of every shared folder: the VM
// follows it to the same path, which it does not have either. The message
// names each such path and the 'paddock set mounts=' that shares it,
// keeping what is shared now.
func BindRefusal(sources []string, shared []resource.AppMount) (string, bool) {
	home, _ := os.UserHomeDir()
	folders := make([]string, 0, len(shared))
	for _, m := range shared {
		folders = append(folders, expand(m.Location, home))
	}
	// A shared folder's own path may pass through links (macOS's /tmp is
	// /private/tmp): the paths links lead to are compared with the
	// folders' as the host resolves them too.
	resolved := slices.Clone(folders)
	for _, f := range folders {
		if r, err := filepath.EvalSymlinks(filepath.FromSlash(f)); err == nil {
			resolved = append(resolved, filepath.ToSlash(r))
		}
	}
	isShared := func(p string) bool {
		return isVMPath(p) || slices.ContainsFunc(resolved, func(f string) bool { return inside(p, f) })
	}
	var refused, named []string
	for _, src := range sources {
		clean := path.Clean(src)
		target, name := clean, clean
		if isVMPath(clean) {
			continue
		}
		if slices.ContainsFunc(folders, func(f string) bool { return inside(clean, f) }) {
			real, err := filepath.EvalSymlinks(filepath.FromSlash(clean))
			if err != nil || isShared(filepath.ToSlash(real)) {
				continue
			}
			target = filepath.ToSlash(real)
			name = fmt.Sprintf("%s (where %s leads)", target, clean)
		} else if _, err := os.Stat(filepath.FromSlash(clean)); err != nil {
			continue
		}
		if !slices.Contains(refused, target) {
			refused, named = append(refused, target), append(named, name)
		}
	}
	if len(refused) == 0 {
		return "", false
	}
	var b strings.Builder
	if len(refused) == 1 {
		fmt.Fprintf(&b, "%s is not shared with the App's VM, so the container would see an empty folder there instead of this host's; share it", named[0])
	} else {
		fmt.Fprintf(&b, "%s are not shared with the App's VM, so the container would see empty folders there instead of this host's; share them", strings.Join(named, ", "))
	}
	fmt.Fprintf(&b, " (the VM restarts): paddock set mounts=%s", suggestMounts(shared, folders, refused))
	if len(shared) == 0 {
		b.WriteString(" (the App shares no folder now)")
	} else {
		b.WriteString(" (the App shares " + mountList(shared) + " now)")
	}
	return b.String(), true
}

// expand is a shared folder's location as a clean host path.
func expand(loc, home string) string {
	if home != "" && (loc == resource.HomeFolder || strings.HasPrefix(loc, resource.HomeFolder+"/")) {
		loc = home + strings.TrimPrefix(loc, resource.HomeFolder)
	}
	return path.Clean(filepath.ToSlash(loc))
}

// suggestMounts is the value of mounts= that shares what is shared now
// and the folders of refused (a file's folder; a folder that holds a
// shared one takes its place).
func suggestMounts(shared []resource.AppMount, folders, refused []string) string {
	var add []string
	for _, r := range refused {
		dir := r
		if st, err := os.Stat(filepath.FromSlash(r)); err == nil && !st.IsDir() {
			dir = path.Dir(r)
		}
		if !slices.ContainsFunc(add, func(a string) bool { return inside(dir, a) }) {
			add = slices.DeleteFunc(add, func(a string) bool { return inside(a, dir) })
			add = append(add, dir)
		}
	}
	var out []string
	for i, m := range shared {
		if !slices.ContainsFunc(add, func(a string) bool { return inside(folders[i], a) }) {
			out = append(out, m.String())
		}
	}
	return strings.Join(append(out, add...), ",")
}

func mountList(ms []resource.AppMount) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return strings.Join(out, ",")
}
