// Package live follows one daemon for the tray: the App and every VM
// through the API's watch streams, and the daemon's comings and goings;
// and, while a VM boots (its Running condition says Starting), its boot's
// steps from its host agent log (boots.go).
// While the daemon is down it waits for the daemon's socket to reappear
// (a file system notification, not a poll), then lists and watches again.
package live
