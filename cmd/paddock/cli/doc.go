// Package cli holds the paddock command's cobra commands: the CLI, which
// is a client of the daemon's REST API, and the commands that start the
// daemon and the helpers it runs. Run is the whole program; package main
// only calls it.
package cli
