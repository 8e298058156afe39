// Package service runs Paddock's daemon as an OS service and manages that
// service: systemd units (user or system) on Linux, launchd agents or daemons
// on macOS and the service control manager on Windows, all through
// github.com/kardianos/service.
//
// It smooths what kardianos leaves rough: installing twice updates the
// definition instead of failing, uninstalling stops a running service
// first, definitions are written whole (temporary file and rename) with
// paths escaped for the format or refused, a crash restarts the daemon in
// seconds, and a failing service manager command reports the manager's own
// words rather than a bare exit status.
//
// One naming rule, Name, gives each instance its own service, so instances
// run side by side as services too.
package service
