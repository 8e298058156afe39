package daemon

import (
	"context"
	"errors"
	"log/slog"

	"paddock.dev/paddock/core/instance"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/platform/engineproxy"
)

// dockerProxy is the proxy of the App's Docker socket: in front of the
// VM's forward, checking bind mounts against the App's shared folders,
// and telling a client whose request found no engine what to do about it.
func dockerProxy(p instance.Paths, st store.Store, log *slog.Logger) *engineproxy.Proxy {
	paddock := "paddock"
	if p.Instance != instance.Default {
		paddock += " --instance " + p.Instance
	}
	return &engineproxy.Proxy{
		Engine: resource.EngineForward(p.ShortDir, resource.EngineMoby),
		Shared: func(ctx context.Context) ([]resource.AppMount, error) {
			a, err := readApp(ctx, st)
			if err != nil {
				return nil, err
			}
			if a.Spec.Mounts == nil {
				return resource.DefaultAppMounts(), nil
			}
			return a.Spec.Mounts, nil
		},
		NotRunning: func(ctx context.Context) string {
			a, err := readApp(ctx, st)
			switch {
			case resource.IsNotFound(err):
				return "there is no App: '" + paddock + " start' makes one and starts it"
			case err != nil:
				return engineproxy.NotRunning
			case a.Spec.ContainerEngine.Name == resource.EngineContainerd:
				return "the App runs containerd, not Docker: '" + paddock + " set containerEngine.name=moby' switches it to Docker"
			case a.Spec.Running:
				return "the App's Docker does not answer yet: the App is starting, or failed to ('" + paddock + " status' tells)"
			}
			return "the App is not running: '" + paddock + " start' starts it"
		},
		Logger: log,
	}
}

// readApp reads the App from st.
func readApp(ctx context.Context, st store.Store) (*resource.App, error) {
	obj, err := st.Get(ctx, resource.Key{Kind: resource.KindApp.Name, Name: resource.AppName})
	if err != nil {
		return nil, err
	}
	return obj.(*resource.App), nil
}

// containerdStream is the relay of the App's containerd socket, in front
// of the VM's forward; its Wake is containerdWake's. A client that wakes
// the App is greeted as containerd's gRPC server greets it: containerd's
// clients give up on a server that says nothing for 10 s, and a resume
// under emulation on a busy host takes longer.
func containerdStream(p instance.Paths, log *slog.Logger) *engineproxy.Stream {
	return &engineproxy.Stream{Engine: resource.EngineForward(p.ShortDir, resource.EngineContainerd), Preface: engineproxy.HTTP2Preface, Logger: log}
}

// containerdWake is wake (the App controller's) for a client of the
// containerd socket: only an App that runs containerd is woken.
func containerdWake(st store.Store, wake func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		a, err := readApp(ctx, st)
		if err != nil {
			return err
		}
		if a.Spec.ContainerEngine.Name != resource.EngineContainerd {
			return errors.New("the App runs " + resource.EngineTitle(a.Spec.ContainerEngine.Name) + ", not containerd")
		}
		return wake(ctx)
	}
}

// serveContainerd serves the App's containerd socket, containerd.sock in
// the short directory, through s until ctx ends, and removes it then.
func serveContainerd(ctx context.Context, p instance.Paths, s *engineproxy.Stream) error {
	return s.Serve(ctx, resource.EngineSocket(p.ShortDir, resource.EngineContainerd))
}
