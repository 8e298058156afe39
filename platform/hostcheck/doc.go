// Package hostcheck says what this host lacks to run the App, each lack with
// the command that fixes it: `paddock doctor` prints its report and
// GET /api/v1alpha1/host answers it.
//
// The checks are pure functions over facts (captured command outputs, file
// probes, free disk), one per OS, so each OS's messages are tested on any
// host; the thin gatherers that collect the facts are split by OS
// (gather_linux.go, gather_darwin.go, gather_windows.go). The report's
// types are the API's, in core/resource.
package hostcheck
