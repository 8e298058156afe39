// Package client is the Go client of Paddock's REST API, the one path by
// which the CLI and the tray reach the daemon. Every error the daemon
// answers comes back as a *resource.Error with its reason.
package client
