// Package client is the Go client of Paddock's REST API, the one path by
// which the CLI, the tray and scripts in Go reach the daemon, in the manner
// of Tailscale's client/local. Besides the resource calls (Get, List,
// Create, Patch, Watch, Follow, ...) it holds what every front door needs
// once: starting the daemon when none answers (Connect with an Autostart),
// waiting until a condition is current or an object gone (Wait, with the
// rule of resource.ConditionCurrent that the server's ?wait= shares), following
// a VM's boot to Running or its failure (WaitVM), and reaching a VM's
// machine through the daemon (SSH, Shell, Logs). Every error the daemon
// answers comes back as a *resource.Error with its reason.
package client
