package dockercontext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/atomicfile"
	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
)

// defaultHostFor is the Docker CLI's endpoint on goos when no context is
// current: Docker Desktop's named pipe on Windows, the socket elsewhere.
func defaultHostFor(goos string) string {
	if goos == "windows" {
		return "npipe:////./pipe/docker_engine"
	}
	return "unix:///var/run/docker.sock"
}

// dialTimeout bounds the check whether a context's endpoint answers.
const dialTimeout = time.Second

// Context is the instance's docker context.
type Context struct {
	// Name is the context's name: paddock, or paddock-INSTANCE.
	Name string
	// ShortDir is the instance's short directory, which holds docker.sock.
	ShortDir string
	// ConfigDir is the Docker CLI's configuration directory; empty means
	// $DOCKER_CONFIG, else ~/.docker.
	ConfigDir string
	// StateFile remembers the context this one replaced as current.
	StateFile string
	// Endpoint is the Docker endpoint the context names; empty means
	// docker.sock in ShortDir (unix://...). On Windows it is the
	// instance's named pipe (npipe://...).
	Endpoint string
}

var _ app.HostContext = Context{}

// NameFor is the context name of an instance: paddock for the default
// instance, paddock-NAME for others.
func NameFor(instanceName string) string {
	if instanceName == instance.Default {
		return "paddock"
	}
	return "paddock-" + instanceName
}

// description marks the contexts Paddock writes.
const description = "Paddock's App: Docker in its VM"

// StateFileName is the name, in the instance's data directory, of the file
// that remembers the context Paddock's replaced as current.
const StateFileName = "docker-context-replaced"

// ForInstance is the docker context of the instance p, whose Docker
// endpoint on this host is endpoint: the context the daemon writes.
func ForInstance(p instance.Paths, endpoint string) Context {
	return Context{
		Name:      NameFor(p.Instance),
		ShortDir:  p.ShortDir,
		StateFile: filepath.Join(p.Dir, StateFileName),
		Endpoint:  endpoint,
	}
}

type meta struct {
	Name      string              `json:"Name"`
	Metadata  map[string]string   `json:"Metadata"`
	Endpoints map[string]endpoint `json:"Endpoints"`
}

type endpoint struct {
	Host          string `json:"Host"`
	SkipTLSVerify bool   `json:"SkipTLSVerify"`
}

func (c Context) configDir() (string, error) {
	if c.ConfigDir != "" {
		return c.ConfigDir, nil
	}
	if d := os.Getenv("DOCKER_CONFIG"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".docker"), nil
}

// metaDir is where the Docker CLI keeps a context's metadata: a directory
// named by the SHA-256 of the context's name.
func metaDir(config, name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(config, "contexts", "meta", hex.EncodeToString(sum[:]))
}

// Use writes the context for engine moby (containerd has no docker
// context: Use removes it) and, when it was just made, makes it current if
// the current context is missing or does not answer.
func (c Context) Use(ctx context.Context, engine string) error {
	if engine != resource.EngineMoby {
		return c.Remove(ctx)
	}
	config, err := c.configDir()
	if err != nil {
		return err
	}
	want, err := json.Marshal(meta{
		Name:      c.Name,
		Metadata:  map[string]string{"Description": description},
		Endpoints: map[string]endpoint{"docker": {Host: c.endpoint(engine)}},
	})
	if err != nil {
		return err
	}
	file := filepath.Join(metaDir(config, c.Name), "meta.json")
	if have, err := os.ReadFile(file); err == nil && string(have) == string(want) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(file, want, 0o644); err != nil {
		return err
	}
	cfg, err := readConfig(config)
	if err != nil {
		return err
	}
	current := currentOf(cfg)
	if current == c.Name || answers(ctx, endpointOf(config, current)) {
		return nil
	}
	if err := atomicfile.WriteFile(c.StateFile, []byte(current), 0o600); err != nil {
		return err
	}
	return setCurrent(config, cfg, c.Name)
}

func (c Context) endpoint(engine string) string {
	if c.Endpoint != "" {
		return c.Endpoint
	}
	return "unix://" + resource.EngineSocket(c.ShortDir, engine)
}

// Remove deletes the context and, if it is current, makes current again
// what it replaced.
func (c Context) Remove(context.Context) error {
	config, err := c.configDir()
	if err != nil {
		return err
	}
	if err := os.RemoveAll(metaDir(config, c.Name)); err != nil {
		return err
	}
	cfg, err := readConfig(config)
	if err != nil {
		return err
	}
	if currentOf(cfg) == c.Name {
		previous, err := os.ReadFile(c.StateFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := setCurrent(config, cfg, string(previous)); err != nil {
			return err
		}
	}
	if err := os.Remove(c.StateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Removal is what RemoveOwn found and did.
type Removal int

const (
	// Absent: there is no context of that name.
	Absent Removal = iota
	// Removed: the context was Paddock's, and is gone.
	Removed
	// Foreign: a context of that name that Paddock did not write (another
	// description or endpoint) is there, and stays.
	Foreign
)

// RemoveOwn is Remove for a context that Paddock wrote for this instance:
// one with Paddock's description and the instance's endpoint. A context of
// the same name that someone else made is left alone, as is the current
// context then.
func (c Context) RemoveOwn(ctx context.Context) (Removal, error) {
	config, err := c.configDir()
	if err != nil {
		return Absent, err
	}
	raw, err := os.ReadFile(filepath.Join(metaDir(config, c.Name), "meta.json"))
	if errors.Is(err, os.ErrNotExist) {
		if err := os.Remove(c.StateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return Absent, err
		}
		return Absent, nil
	}
	if err != nil {
		return Absent, err
	}
	var m meta
	if json.Unmarshal(raw, &m) != nil || m.Name != c.Name || m.Metadata["Description"] != description ||
		m.Endpoints["docker"].Host != c.endpoint(resource.EngineMoby) {
		return Foreign, nil
	}
	if err := c.Remove(ctx); err != nil {
		return Absent, err
	}
	return Removed, nil
}

// readConfig reads config.json as its fields, so that writing it back
// keeps every field this package does not know.
func readConfig(config string) (map[string]json.RawMessage, error) {
	raw, err := os.ReadFile(filepath.Join(config, "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	cfg := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(config, "config.json"), err)
	}
	return cfg, nil
}

func currentOf(cfg map[string]json.RawMessage) string {
	var name string
	_ = json.Unmarshal(cfg["currentContext"], &name)
	return name
}

// setCurrent makes name the current context; "" leaves none set.
func setCurrent(config string, cfg map[string]json.RawMessage, name string) error {
	if name == "" || name == "default" {
		delete(cfg, "currentContext")
	} else {
		cfg["currentContext"], _ = json.Marshal(name)
	}
	raw, err := json.MarshalIndent(cfg, "", "\t")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(config, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(config, "config.json"), raw, 0o600)
}

// endpointOf returns the Docker endpoint of the context name ("" or
// default: the CLI's default), "" when the context does not exist.
func endpointOf(config, name string) string {
	if name == "" || name == "default" {
		if h := os.Getenv("DOCKER_HOST"); h != "" {
			return h
		}
		return defaultHostFor(runtime.GOOS)
	}
	raw, err := os.ReadFile(filepath.Join(metaDir(config, name), "meta.json"))
	if err != nil {
		return ""
	}
	var m meta
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return m.Endpoints["docker"].Host
}

// answers reports whether something accepts connections at a Docker
// endpoint (unix://, tcp://, or npipe://, whose pipe must exist); other
// kinds (ssh://) count as answering, since they cannot be checked without
// their tools.
func answers(ctx context.Context, host string) bool {
	u, err := url.Parse(host)
	if host == "" || err != nil {
		return false
	}
	network, addr := u.Scheme, u.Host
	switch u.Scheme {
	case "unix":
		addr = u.Path
	case "tcp":
	case "npipe":
		_, err := os.Stat(npipePath(u))
		return err == nil
	default:
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// npipePath is the Windows path of an npipe:// endpoint:
// npipe:////./pipe/NAME is \\.\pipe\NAME.
func npipePath(u *url.URL) string {
	return strings.ReplaceAll(u.Path, "/", `\`)
}
