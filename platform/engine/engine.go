package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"paddock.dev/paddock/core/app"
	"paddock.dev/paddock/core/resource"
)

// Pinger asks the engines of one instance.
type Pinger struct {
	// ShortDir is the instance's short directory, which holds the sockets.
	ShortDir string
}

var (
	_ app.Engine     = Pinger{}
	_ app.Containers = Pinger{}
)

// socket is where the Pinger reaches engine: the VM's forward itself, so
// that its calls say whether the engine runs, and never count as a
// client's or wake the App.
func (p Pinger) socket(engine string) string { return resource.EngineForward(p.ShortDir, engine) }

// Ping asks engine whether it answers and returns what answered.
func (p Pinger) Ping(ctx context.Context, engine string) (string, error) {
	sock := p.socket(engine)
	switch engine {
	case resource.EngineMoby:
		return pingDocker(ctx, sock)
	case resource.EngineContainerd:
		return containerdVersion(ctx, sock)
	}
	return "", fmt.Errorf("unknown container engine %q", engine)
}

// AnyRunning asks engine whether a container runs in it: Docker's
// GET /containers/json?limit=1, which lists running (and paused)
// containers only; containerd's tasks in every namespace.
func (p Pinger) AnyRunning(ctx context.Context, engine string) (bool, error) {
	sock := p.socket(engine)
	switch engine {
	case resource.EngineMoby:
	case resource.EngineContainerd:
		return containerdAnyRunning(ctx, sock)
	default:
		return false, fmt.Errorf("unknown container engine %q", engine)
	}
	resp, err := dockerGet(ctx, sock, "/containers/json?limit=1")
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("docker at %s answered %s to a list of its containers", sock, resp.Status)
	}
	var containers []json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&containers); err != nil {
		return false, fmt.Errorf("docker at %s: its list of containers: %w", sock, err)
	}
	return len(containers) > 0, nil
}

// dockerGet makes one GET of Docker's API through sock, on a connection
// of its own.
func dockerGet(ctx context.Context, sock, path string) (*http.Response, error) {
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
		DisableKeepAlives: true,
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://docker"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker at %s: %w", sock, err)
	}
	return resp, nil
}

// pingDocker calls Docker's /_ping, whose headers say the server's version
// and API version for the report. (/version says the same and more, but
// dockerd runs runc and docker-init to answer it: a few hundred
// milliseconds under emulation, on every start's way to Settled.)
func pingDocker(ctx context.Context, sock string) (string, error) {
	resp, err := dockerGet(ctx, sock, "/_ping")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)); err != nil {
		return "", fmt.Errorf("docker at %s: %w", sock, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("docker at %s answered %s to /_ping", sock, resp.Status)
	}
	// Server: Docker/20.10.24+dfsg1 (linux)
	what := "Docker"
	if v, ok := strings.CutPrefix(resp.Header.Get("Server"), "Docker/"); ok {
		if v, _, _ = strings.Cut(v, " "); v != "" {
			what += " " + v
		}
	}
	if api := resp.Header.Get("Api-Version"); api != "" {
		what += " (API " + api + ")"
	}
	return what + " answers at " + sock, nil
}
