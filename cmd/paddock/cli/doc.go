// Package cli holds the paddock command's cobra commands: the CLI, a
// client of the daemon's REST API (api/client), and `paddock serve`, which
// runs the daemon that package daemon assembles. Run is the whole CLI;
// package main calls it after package argv0 had its chance to become a
// helper.
package cli
