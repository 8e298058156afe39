// Package darwin holds what Paddock needs to know about a macOS host: its
// Library directories and its socket path limit today, VZ and QEMU through
// Lima and launchd specifics as they arrive. It builds on every OS.
package darwin
