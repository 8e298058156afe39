// Package engine reaches the App's container engine from the host, through
// the socket its VM forwards into the instance's short directory
// (resource.EngineForward; not the daemon's Docker socket in front of it): Docker's
// /_ping for moby, containerd's version call (gRPC) for containerd. It
// tells the App's controller whether the engine answers and, for Docker,
// whether a container runs (which keeps an App from being suspended).
package engine
