package engineproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
)

func TestBindSources(t *testing.T) {
	body := `{"HostConfig":{"Binds":["/a:/x","vol:/y","/b/c:/z:ro,Z","rel/path:/w"],
		"Mounts":[{"Type":"bind","Source":"/d"},{"Type":"volume","Source":"v"},{"Type":"tmpfs","Target":"/t"}]}}`
	got := bindSources([]byte(body))
	if strings.Join(got, " ") != "/a /b/c /d" {
		t.Fatalf("bindSources = %q", got)
	}
	for _, b := range []string{`{}`, `{"HostConfig":null}`, `not json`} {
		if got := bindSources([]byte(b)); got != nil {
			t.Errorf("%s: %q", b, got)
		}
	}
}

// The home folder (~) shares everything under it; the VM's own paths
// pass, as does a path the host does not have; a file's folder is what
// the message proposes to share, and a folder that holds a shared one
// takes its place.
func TestBindRefusal(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	other := t.TempDir()
	file := filepath.Join(other, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(other, "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	def := resource.DefaultAppMounts()
	for _, ok := range []string{home, home + "/src", home + "/../" + filepath.Base(home) + "/x", "/var/run/docker.sock", "/run/docker.sock",
		"/proc", "/sys/fs/cgroup", "/dev/kmsg", "/etc/localtime", "/var/lib/docker", "/lib/modules", "/", "/nonexistent/x"} {
		if msg, refused := BindRefusal([]string{ok}, def); refused {
			t.Errorf("%s refused: %s", ok, msg)
		}
	}
	msg, refused := BindRefusal([]string{file, proj, file}, def)
	if !refused || !strings.Contains(msg, file+", "+proj+" are not shared") || !strings.Contains(msg, "paddock set mounts=~,"+other+" (the App shares ~ now)") {
		t.Errorf("a file and a folder beside it: %v %q", refused, msg)
	}
	msg, refused = BindRefusal([]string{other}, []resource.AppMount{{Location: proj, ReadOnly: true}, {Location: "~"}})
	if !refused || !strings.Contains(msg, "mounts=~,"+other+" (the App shares "+proj+":ro,~ now)") {
		t.Errorf("a folder holding a shared one: %v %q", refused, msg)
	}
	msg, refused = BindRefusal([]string{proj}, []resource.AppMount{})
	if !refused || !strings.Contains(msg, "mounts="+proj+" (the App shares no folder now)") {
		t.Errorf("nothing shared: %v %q", refused, msg)
	}
}

// A link inside a shared folder passes where it leads into a shared
// folder, or into the VM's own paths, and is refused, named with where it
// leads, where it leads out of them; a shared folder that is itself a
// link shares what it leads to.
func TestBindRefusalFollowsLinks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	other := t.TempDir()
	data := filepath.Join(other, "data")
	for _, d := range []string{data, filepath.Join(home, "src")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"out": data, "in": filepath.Join(home, "src"), "rel": "src", "sock": "/run", "gone": "/nonexistent"}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(home, name)); err != nil {
			t.Fatal(err)
		}
	}
	def := resource.DefaultAppMounts()
	for _, ok := range []string{"in", "rel/x", "sock", "gone"} {
		if msg, refused := BindRefusal([]string{filepath.Join(home, ok)}, def); refused {
			t.Errorf("~/%s refused: %s", ok, msg)
		}
	}
	out := filepath.Join(home, "out")
	msg, refused := BindRefusal([]string{out}, def)
	if !refused || !strings.Contains(msg, data+" (where "+out+" leads) is not shared") || !strings.Contains(msg, "paddock set mounts=~,"+data+" ") {
		t.Errorf("a link out of the home folder: %v %q", refused, msg)
	}
	// ~/out shared as a folder of its own: its link is the host's way to
	// data, which the VM then has at ~/out.
	if msg, refused := BindRefusal([]string{out}, []resource.AppMount{{Location: "~/out"}}); refused {
		t.Errorf("a shared folder that is a link: refused: %s", msg)
	}
}
