package host

import "paddock.dev/paddock/platform/darwin"

// Current is this host.
func Current() Host { return darwin.Host{} }
