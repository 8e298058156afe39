// Package daemon assembles Paddock's daemon from its parts and runs it:
// the instance's lock and pid file, the store (SQLite or PostgreSQL), the
// VM and App controllers with the Lima driver and this host's App
// template, the REST API on the instance's Unix socket (and on loopback
// TCP on request), and the orderly shutdown. `paddock serve` calls Run;
// nothing else here is a command.
package daemon
