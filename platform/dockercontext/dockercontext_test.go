package dockercontext

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock.dev/paddock/core/resource"
)

func setup(t *testing.T, config string) Context {
	t.Helper()
	dir := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Context{Name: "paddock-x", ShortDir: "/home/u/.paddock-x", ConfigDir: dir, StateFile: filepath.Join(t.TempDir(), "replaced")}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAMissingDefaultIsReplacedAndRestored(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	c := setup(t, `{"auths":{"example":{}}}`)
	ctx := context.Background()
	if err := c.Use(ctx, resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, filepath.Join(metaDir(c.ConfigDir, c.Name), "meta.json"))
	if host := m["Endpoints"].(map[string]any)["docker"].(map[string]any)["Host"]; host != "unix:///home/u/.paddock-x/docker.sock" {
		t.Fatalf("endpoint %v", host)
	}
	cfg := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))
	if cfg["currentContext"] != "paddock-x" || cfg["auths"] == nil {
		t.Fatalf("config.json = %v", cfg)
	}
	if err := c.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	cfg = readJSON(t, filepath.Join(c.ConfigDir, "config.json"))
	if _, set := cfg["currentContext"]; set || cfg["auths"] == nil {
		t.Fatalf("config.json after Remove = %v", cfg)
	}
	if _, err := os.Stat(metaDir(c.ConfigDir, c.Name)); !os.IsNotExist(err) {
		t.Fatalf("the context is still there: %v", err)
	}
}

func TestAContextThatAnswersStaysCurrent(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := setup(t, `{"currentContext":"mine"}`)
	mine := filepath.Join(metaDir(c.ConfigDir, "mine"), "meta.json")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte(`{"Name":"mine","Endpoints":{"docker":{"Host":"unix://`+sock+`"}}}`), 0o644)
	ctx := context.Background()
	if err := c.Use(ctx, resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
	if got := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))["currentContext"]; got != "mine" {
		t.Fatalf("a context that answers was replaced by %v", got)
	}
	if err := c.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))["currentContext"]; got != "mine" {
		t.Fatalf("Remove changed the user's context to %v", got)
	}

	// Once it no longer answers, ours takes over, and gives it back.
	l.Close()
	if err := c.Use(ctx, resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
	if got := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))["currentContext"]; got != "paddock-x" {
		t.Fatalf("current = %v", got)
	}
	if err := c.Use(ctx, resource.EngineContainerd); err != nil { // no docker context for containerd
		t.Fatal(err)
	}
	if got := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))["currentContext"]; got != "mine" {
		t.Fatalf("current after switching to containerd = %v", got)
	}
	if !strings.HasPrefix(NameFor("x"), "paddock-") || NameFor("default") != "paddock" {
		t.Fatal("NameFor")
	}
}

// On Windows the context names the instance's named pipe.
func TestAContextNamesItsEndpoint(t *testing.T) {
	c := setup(t, "")
	c.Endpoint = "npipe:////./pipe/paddock-x"
	if err := c.Use(context.Background(), resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, filepath.Join(metaDir(c.ConfigDir, c.Name), "meta.json"))
	if host := m["Endpoints"].(map[string]any)["docker"].(map[string]any)["Host"]; host != c.Endpoint {
		t.Fatalf("endpoint %v, want %s", host, c.Endpoint)
	}
}

// With no context current, the Docker CLI on Windows speaks to Docker
// Desktop's named pipe, not to a Unix socket: Paddock takes the context
// over only when that pipe is missing.
func TestDefaultEndpointPerOS(t *testing.T) {
	if got := defaultHostFor("windows"); got != "npipe:////./pipe/docker_engine" {
		t.Errorf("Windows: %s", got)
	}
	for _, goos := range []string{"linux", "darwin"} {
		if got := defaultHostFor(goos); got != "unix:///var/run/docker.sock" {
			t.Errorf("%s: %s", goos, got)
		}
	}
	u, _ := url.Parse(defaultHostFor("windows"))
	if got := npipePath(u); got != `\\.\pipe\docker_engine` {
		t.Errorf("the pipe's path: %s", got)
	}
	// No such pipe here: the default does not answer.
	if answers(context.Background(), defaultHostFor("windows")) {
		t.Error("a missing named pipe answers")
	}
}

// RemoveOwn removes the context Paddock wrote, giving the current context
// back, and leaves a context of the same name that someone else made, or
// one of another instance's endpoint, where it is.
func TestRemoveOwnKeepsAForeignContext(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ctx := context.Background()
	c := setup(t, `{"currentContext":"gone"}`)
	if got, err := c.RemoveOwn(ctx); err != nil || got != Absent {
		t.Fatalf("RemoveOwn with no context = %v, %v; want Absent", got, err)
	}
	if err := c.Use(ctx, resource.EngineMoby); err != nil {
		t.Fatal(err)
	}
	if got, err := c.RemoveOwn(ctx); err != nil || got != Removed {
		t.Fatalf("RemoveOwn of Paddock's context = %v, %v; want Removed", got, err)
	}
	if _, err := os.Stat(metaDir(c.ConfigDir, c.Name)); !os.IsNotExist(err) {
		t.Fatalf("the context is still there: %v", err)
	}
	if got := readJSON(t, filepath.Join(c.ConfigDir, "config.json"))["currentContext"]; got != "gone" {
		t.Fatalf("current after RemoveOwn = %v, want the one it replaced", got)
	}
	if _, err := os.Stat(c.StateFile); !os.IsNotExist(err) {
		t.Fatalf("the record of the replaced context stays: %v", err)
	}

	foreign := filepath.Join(metaDir(c.ConfigDir, c.Name), "meta.json")
	for _, body := range []string{
		`{"Name":"paddock-x","Metadata":{"Description":"mine"},"Endpoints":{"docker":{"Host":"unix:///home/u/.paddock-x/docker.sock"}}}`,
		`{"Name":"paddock-x","Metadata":{"Description":"` + description + `"},"Endpoints":{"docker":{"Host":"tcp://10.0.0.1:2375"}}}`,
	} {
		os.MkdirAll(filepath.Dir(foreign), 0o755)
		os.WriteFile(foreign, []byte(body), 0o644)
		if got, err := c.RemoveOwn(ctx); err != nil || got != Foreign {
			t.Fatalf("RemoveOwn of %s = %v, %v; want Foreign", body, got, err)
		}
		if have, err := os.ReadFile(foreign); err != nil || string(have) != body {
			t.Fatalf("a foreign context was changed: %v %s", err, have)
		}
	}
}
