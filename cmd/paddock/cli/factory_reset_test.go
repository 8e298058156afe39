//go:build linux

package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/dockercontext"
	"paddock.dev/paddock/platform/host"
)

// files lists every file, link and directory under root, each with a hash
// of its contents, by path relative to root.
func files(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			out[rel] = hex.EncodeToString(sum[:])
		case d.IsDir():
			out[rel] = "dir"
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// instanceFiles are the files of files that belong to the instance e:
// those in its directories, its docker context's and its tray's start at
// login.
func instanceFiles(e *env, all map[string]string) []string {
	ctx := dockercontext.ForInstance(instance.Paths{Instance: e.instance}, "")
	sum := sha256.Sum256([]byte(ctx.Name))
	owned := []string{
		e.path("dir"), e.path("log_dir"), e.path("short_dir"),
		filepath.Join(e.home, ".docker", "contexts", "meta", hex.EncodeToString(sum[:])),
		filepath.Join(e.home, ".config", "autostart", strings.TrimSuffix("paddock-tray-"+e.instance, "-default")+".desktop"),
	}
	var out []string
	for rel := range all {
		path := filepath.Join(e.home, rel)
		for _, o := range owned {
			if path == o || strings.HasPrefix(path, o+string(filepath.Separator)) {
				out = append(out, rel)
			}
		}
	}
	slices.Sort(out)
	return out
}

// makeDockerContext writes the docker context the daemon writes for e's
// instance once its App runs Docker, as the daemon does.
func makeDockerContext(t *testing.T, e *env) {
	t.Helper()
	p := instance.Paths{Instance: e.instance, Dir: e.path("dir"), ShortDir: e.path("short_dir")}
	if err := dockercontext.ForInstance(p, host.Current().DockerEndpoint(p)).Use(context.Background(), resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
}

// factory-reset stops the daemon, removes the VM's Lima instance, the
// database, the logs, the sockets, the docker context and the tray's start
// at login of its instance, says so, and leaves another instance's files
// and the image cache it uses as they were. Reset last, that instance
// takes the image cache along, and nothing of Paddock stays.
func TestFactoryResetRemovesEverythingOfTheInstance(t *testing.T) {
	e := newEnv(t, "default")
	other := &env{t: t, home: e.home, instance: "dev"}
	t.Setenv("DOCKER_CONFIG", filepath.Join(e.home, ".docker"))
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")

	// The other instance: objects in its database, its context and its
	// tray's start at login, its daemon stopped.
	od := other.serve()
	call(t, od.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"keep"}}`)
	od.stop(t, syscall.SIGTERM)
	makeDockerContext(t, other)
	other.mustRun("tray", "--autostart", "on")
	downloads := filepath.Join(e.home, ".cache", "paddock", "downloads")
	if err := os.MkdirAll(downloads, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(downloads, "image.qcow2"), []byte("disk"), 0o600); err != nil {
		t.Fatal(err)
	}

	// This one: a daemon running, a VM created (its Lima instance made,
	// not started), the context, the tray's start at login.
	d := e.serve()
	if _, errOut, code := e.run(demoFile, "apply", "-f", "-"); code != 0 {
		t.Fatalf("apply: exit %d %s", code, errOut)
	}
	e.mustRun("wait", "vm/dev", "--for=condition=Created", "--timeout=60s")
	makeDockerContext(t, e)
	e.mustRun("tray", "--autostart", "on")

	before := files(t, e.home)
	mine := instanceFiles(e, before)
	if len(mine) < 5 {
		t.Fatalf("the instance has only %v before the reset", mine)
	}
	theirs := map[string]string{}
	for _, rel := range instanceFiles(other, before) {
		theirs[rel] = before[rel]
	}
	if _, ok := theirs["instances.json"]; ok || len(theirs) < 5 {
		t.Fatalf("the other instance has only %v", theirs)
	}

	out, errOut, code := e.run("", "factory-reset", "--force")
	if code != 0 {
		t.Fatalf("factory-reset: exit %d %s", code, errOut)
	}
	if strings.Contains(errOut, "level=INFO") {
		t.Errorf("factory-reset printed Lima's chatter:\n%s", errOut)
	}
	for _, want := range []string{
		"stopped the daemon of instance default (pid ",
		"removed the VM dev and its disk\n",
		"removed the docker context paddock\n",
		"removed the tray's start at login " + filepath.Join(e.home, ".config", "autostart", "paddock-tray.desktop") + "\n",
		"removed the database and the API's token " + filepath.Join(e.home, ".local", "share", "paddock", "default") + "\n",
		"removed the logs ",
		"removed the sockets and the VMs' Lima home " + filepath.Join(e.home, ".paddock") + "\n",
		"kept the downloaded guest images " + downloads + ": instance dev uses them too\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("factory-reset did not say %q:\n%s", want, out)
		}
	}
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		t.Errorf("the daemon still runs after factory-reset: %s", d.log)
	}

	after := files(t, e.home)
	if left := instanceFiles(e, after); len(left) > 0 {
		t.Errorf("factory-reset left files of the instance: %v\nit said:\n%s", left, out)
	}
	for rel, sum := range theirs {
		if after[rel] != sum {
			t.Errorf("the other instance's %s changed: %q, was %q", rel, after[rel], sum)
		}
	}
	if got := e.mustRun("list"); strings.Contains(got, "default") || !strings.Contains(got, "dev") {
		t.Errorf("paddock list after the reset:\n%s", got)
	}

	// The other instance, reset last, takes the image cache along; only
	// the Docker CLI's own configuration stays.
	out = other.mustRun("factory-reset", "-f")
	if !strings.Contains(out, "removed the downloaded guest images "+downloads+"\n") {
		t.Errorf("the last factory-reset said:\n%s", out)
	}
	if left := leftOfPaddock(t, e.home); len(left) > 0 {
		t.Errorf("after resetting every instance, left: %v", left)
	}
}

// leftOfPaddock lists what is under home but the base directories Paddock
// shares with other programs (~/.local/share, ~/.config/autostart, ...)
// and the Docker CLI's configuration.
func leftOfPaddock(t *testing.T, home string) []string {
	shared := []string{".docker", ".docker/config.json", ".docker/contexts", ".docker/contexts/meta",
		".config", ".config/autostart", ".local", ".local/share", ".local/state", ".cache"}
	var left []string
	for rel := range files(t, home) {
		if !slices.Contains(shared, filepath.ToSlash(rel)) {
			left = append(left, rel)
		}
	}
	slices.Sort(left)
	return left
}

// Without a terminal to ask on and without --force it refuses, naming
// --force, and removes nothing; on a terminal it asks, naming what is
// lost, and only a yes goes on.
func TestFactoryResetAsksFirst(t *testing.T) {
	e := newEnv(t, "default")
	e.serve().stop(t, syscall.SIGTERM)
	e.mustRun("tray", "--autostart", "on")
	before := files(t, e.home)
	_, errOut, code := e.run("", "factory-reset")
	if code != exitUsage || !strings.Contains(errOut, "pass --force (-f)") || !strings.Contains(errOut, "the database") {
		t.Errorf("factory-reset without a terminal: exit %d %q; want exit 2 naming --force", code, errOut)
	}
	errOut, code = runOnTerminal(t, e, "n\n", "factory-reset")
	if code != exitError || !strings.Contains(errOut, "every VM and the App with their disks") || !strings.Contains(errOut, "not confirmed") {
		t.Errorf("factory-reset answered no: exit %d %q", code, errOut)
	}
	after := files(t, e.home)
	for rel, sum := range before {
		if after[rel] != sum {
			t.Errorf("%s changed though nothing was confirmed", rel)
		}
	}
	if errOut, code = runOnTerminal(t, e, "y\n", "factory-reset"); code != 0 {
		t.Errorf("factory-reset answered yes: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(e.path("db")); !os.IsNotExist(err) {
		t.Errorf("the database stays after yes: %v", err)
	}
}

// Run again, factory-reset finds nothing to remove and succeeds.
func TestFactoryResetTwice(t *testing.T) {
	e := newEnv(t, "dev")
	e.serve().stop(t, syscall.SIGTERM)
	if out := e.mustRun("factory-reset", "--force"); !strings.Contains(out, "removed the database") {
		t.Errorf("the first factory-reset said %q", out)
	}
	out, errOut, code := e.run("", "factory-reset", "--force")
	if code != 0 || out != "nothing to remove: instance dev has nothing on this machine\n" {
		t.Errorf("the second factory-reset: exit %d %q %q", code, out, errOut)
	}
	if left := leftOfPaddock(t, e.home); len(left) > 0 {
		t.Errorf("left after resetting the only instance: %v", left)
	}
}

// factory-reset removes only a directory of its own directly inside a
// base directory: never the base itself, a path outside it, or an empty
// or relative path, as a damaged environment could produce.
func TestFactoryResetRemovesOnlyItsOwnDirectories(t *testing.T) {
	for _, c := range []struct {
		dir, parent string
		ok          bool
	}{
		{"/home/u/.paddock", "/home/u", true},
		{"/home/u/.local/share/paddock/dev/", "/home/u/.local/share/paddock", true},
		{"/home/u", "/home/u", false},
		{"/home/u/.paddock/..", "/home/u", false},
		{"/home/u/.local/share/paddock/dev/lima", "/home/u/.local/share/paddock", false},
		{"/etc", "/home/u", false},
		{"", "/home/u", false},
		{"/home/u/.paddock", "", false},
		{".paddock", ".", false},
	} {
		if err := ownDir(c.dir, c.parent); (err == nil) != c.ok {
			t.Errorf("ownDir(%q, %q) = %v, want ok %v", c.dir, c.parent, err, c.ok)
		}
	}
}
