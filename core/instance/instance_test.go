package instance_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"paddock.dev/paddock/core/instance"
)

func roots(t *testing.T) instance.Roots {
	dir := t.TempDir()
	return instance.Roots{Data: filepath.Join(dir, "data"), Log: filepath.Join(dir, "log"), Short: filepath.Join(dir, "short")}
}

func TestValidateName(t *testing.T) {
	for _, name := range []string{"default", "a", "dev-2", strings.Repeat("x", 32)} {
		if err := instance.ValidateName(name); err != nil {
			t.Errorf("ValidateName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", "Dev", "-dev", "dev-", "a_b", "a.b", "../x", strings.Repeat("x", 33)} {
		err := instance.ValidateName(name)
		if err == nil || !strings.Contains(err.Error(), "lowercase letters, digits and inner dashes") {
			t.Errorf("ValidateName(%q) = %v, want a refusal that says what is allowed", name, err)
		}
	}
	if _, err := instance.Resolve(roots(t), "Bad"); err == nil {
		t.Error("Resolve accepted an invalid name")
	}
}

func TestDefaultInstancePaths(t *testing.T) {
	r := roots(t)
	p, err := instance.Resolve(r, instance.Default)
	if err != nil {
		t.Fatal(err)
	}
	want := instance.Paths{
		Instance: "default",
		Index:    0,
		Dir:      filepath.Join(r.Data, "default"),
		ShortDir: filepath.Join(r.Short, ".paddock"),
		LogDir:   filepath.Join(r.Log, "default"),
		LogFile:  filepath.Join(r.Log, "default", "paddock.log"),
		Socket:   filepath.Join(r.Short, ".paddock", "paddock.sock"),
		LimaHome: filepath.Join(r.Short, ".paddock", "lima"),
		DB:       filepath.Join(r.Data, "default", "paddock.db"),
		PIDFile:  filepath.Join(r.Data, "default", "paddock.pid"),
		LockFile: filepath.Join(r.Data, "default", "paddock.lock"),
		Token:    filepath.Join(r.Data, "default", "token"),
		APIPort:  47600,
	}
	if p != want {
		t.Errorf("Resolve(default) =\n%+v\nwant\n%+v", p, want)
	}
	if _, err := os.Stat(filepath.Join(r.Data, "instances.json")); !os.IsNotExist(err) {
		t.Errorf("the default instance wrote a registry entry: %v", err)
	}
}

// Two instances never share a directory, a socket or a port, and each
// keeps its index for good.
func TestInstancesDoNotCollide(t *testing.T) {
	r := roots(t)
	const n = 8
	paths := make([]instance.Paths, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { paths[i], errs[i] = instance.Resolve(r, fmt.Sprintf("i%d", i)) })
	}
	wg.Wait()
	def, err := instance.Resolve(r, instance.Default)
	if err != nil {
		t.Fatal(err)
	}
	all := append(paths, def)
	seen := map[string]string{}
	for i, p := range all {
		if i < n && errs[i] != nil {
			t.Fatal(errs[i])
		}
		for key, value := range p.Map() {
			if key == "instance" {
				continue
			}
			if other, ok := seen[key+"="+value]; ok {
				t.Errorf("instances %s and %s share %s %s", other, p.Instance, key, value)
			}
			seen[key+"="+value] = p.Instance
		}
	}
	for _, p := range paths {
		again, err := instance.Resolve(r, p.Instance)
		if err != nil {
			t.Fatal(err)
		}
		if again != p {
			t.Errorf("instance %s moved from index %d to %d", p.Instance, p.Index, again.Index)
		}
		if p.Index < 1 || p.Index > n || p.APIPort != 47600+10*p.Index {
			t.Errorf("instance %s has index %d and port %d", p.Instance, p.Index, p.APIPort)
		}
		if p.ShortDir != filepath.Join(r.Short, ".paddock-"+p.Instance) {
			t.Errorf("instance %s has short directory %s", p.Instance, p.ShortDir)
		}
	}
}

func TestDamagedRegistryIsNamed(t *testing.T) {
	r := roots(t)
	if err := os.MkdirAll(r.Data, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(r.Data, "instances.json")
	if err := os.WriteFile(file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := instance.Resolve(r, "dev")
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Resolve with a damaged registry = %v, want an error naming %s", err, file)
	}
}

func TestMkdirAllMakesTheShortDirectoryPrivate(t *testing.T) {
	p, err := instance.Resolve(roots(t), "dev")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p.ShortDir, 0o755); err != nil { // left open by someone
		t.Fatal(err)
	}
	if err := p.MkdirAll(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{p.Dir, p.LogDir, p.ShortDir} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: %v", d, err)
		}
	}
	if runtime.GOOS == "windows" {
		return // Windows has no Unix permission bits; the ACL of the user's profile protects the directory
	}
	if fi, err := os.Stat(p.ShortDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("short directory mode %v (%v), want 0700: it holds the API socket", fi.Mode().Perm(), err)
	}
}

// The names paths print under are the JSON names, in a stable order.
func TestMapKeysAreTheJSONNames(t *testing.T) {
	p, err := instance.Resolve(roots(t), "dev")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON map[string]any
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	m := p.Map()
	for k, v := range fromJSON {
		if m[k] != fmt.Sprint(v) {
			t.Errorf("key %s: Map has %q, JSON %v", k, m[k], v)
		}
	}
	keys := p.Keys()
	if len(keys) != len(fromJSON) || !slices.IsSorted(keys) {
		t.Errorf("Keys() = %v, want the %d JSON names, sorted", keys, len(fromJSON))
	}
}
